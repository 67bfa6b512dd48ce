"""The JSON Schema of every output that carries a schema tag, generated from its model, as the
repository publishes them in schemas/ (`python -m nastune.report.schemas schemas` rewrites them;
tests/unit/test_wire.py checks them against the models and every output against them)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pydantic import BaseModel

from nastune.bench.results import ResultSet
from nastune.facts import Facts
from nastune.rules.model import Findings
from nastune.tune.plan import Plan
from nastune.wire import KINDS, tag

MODELS: list[type[BaseModel]] = [*KINDS.values(), Facts, Findings, Plan, ResultSet]


def file_name(model: type[BaseModel]) -> str:
    """nastune.apply/1 -> apply.v1.json"""
    return tag(model).removeprefix("nastune.").replace("/", ".v") + ".json"


def schemas() -> dict[str, dict]:
    out = {}
    for model in MODELS:
        schema = model.model_json_schema(by_alias=True, mode="serialization")
        out[file_name(model)] = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": tag(model), **schema}
    return out


def text(schema: dict) -> str:
    return json.dumps(schema, indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "schemas")
    target.mkdir(parents=True, exist_ok=True)
    for name, schema in schemas().items():
        (target / name).write_text(text(schema))
        print(target / name)
