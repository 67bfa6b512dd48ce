"""A lab whose directory is under /var/tmp cannot serve its clients (each has a /var/tmp of its
own, bound over the host's): `up` refuses it by name before it makes anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from nastune.lab import scenario
from nastune.lab.sh import LabError
from nastune.sites.lab.lab import Lab


def test_a_lab_under_var_tmp_is_refused_before_anything_is_made(tmp_path):
    where = Path("/var/tmp") / f"nastune-test-{tmp_path.name}"
    with pytest.raises(LabError, match=f"{where} is under /var/tmp"):
        Lab(where).up(scenario.load("soho", {}), log=lambda m: None)
    assert not where.exists()
