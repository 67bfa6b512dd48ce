"""Every JSON summary nastune prints has a schema tag and a published JSON Schema (schemas/),
generated from its model; tests/conftest.py checks every --json output of the suite against it."""

from __future__ import annotations

import json

import jsonschema
import pytest

from nastune import wire
from nastune.report import schemas
from tests.conftest import SCHEMAS, check_schema


def test_the_published_schemas_are_the_models():
    made = schemas.schemas()
    assert sorted(p.name for p in SCHEMAS.glob("*.json")) == sorted(made)
    for name, schema in made.items():
        assert (SCHEMAS / name).read_text() == schemas.text(schema), f"{name}: python -m nastune.report.schemas schemas"


def test_every_tag_is_nastune_kind_and_version():
    for model in schemas.MODELS:
        kind, _, version = wire.tag(model).removeprefix("nastune.").partition("/")
        assert kind, wire.tag(model)
        assert version.isdigit(), wire.tag(model)


def test_a_summary_off_its_schema_is_caught():
    good = json.loads(wire.Apply(journal=None, watchdog=0, changes=1, changed=0, would_change=1, dry_run=True).dumps())
    check_schema(good)
    with pytest.raises(jsonschema.ValidationError):
        check_schema({**good, "watchdog": "soon"})
    with pytest.raises(jsonschema.ValidationError):
        check_schema({**good, "surprise": 1})
    with pytest.raises(AssertionError, match="no schema tag"):
        check_schema({"journal": None})
