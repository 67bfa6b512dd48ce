"""`nastune report` as a workflow: the runs compared with the first (an incomparable one noted,
not fatal), the facts and findings files validated, the HTML report and its CSV written."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import TypeAdapter, ValidationError

from nastune import jsonfile
from nastune.bench.results import ResultSet
from nastune.errors import UsageError
from nastune.facts import SCHEMA as FACTS
from nastune.facts import Facts
from nastune.report import html
from nastune.rules.model import Finding
from nastune.stats.runs import Incomparable, compare_runs

T = TypeVar("T")
FINDINGS = "nastune.findings/1"  # diagnose --json; optimize's findings.json is the bare list


def write(runs: list[ResultSet], out: Path, facts: Path | None = None, findings: Path | None = None) -> Path:
    """The report's path; ValueError names a bad file (or field), OSError one that cannot be written."""
    if out.is_dir() or not out.parent.is_dir():
        raise UsageError(
            f"{out}: {'is a directory' if out.is_dir() else 'its directory does not exist'}; give a file path"
        )
    rows, notes = [], []
    for other in runs[1:]:
        try:
            more, remarks = compare_runs(runs[0], other, force=True)
        except Incomparable as e:
            notes.append(str(e))
            continue
        rows += more
        notes += remarks
    facts_data = jsonfile.load_versioned(facts, FACTS, "facts file (inspect --json)") if facts else None
    findings_data = jsonfile.load(findings) if findings else None
    if isinstance(findings_data, dict) and findings:  # diagnose --json: the findings under their schema tag
        findings_data = jsonfile.versioned(findings, findings_data, FINDINGS, "findings file (diagnose --json)")[
            "findings"
        ]
    known = _validated(facts, facts_data, Facts) if facts_data is not None else None
    found = _validated(findings, findings_data, list[Finding]) if findings_data is not None else []
    try:
        return html.render(html.Page(runs, rows, notes, facts=known, findings=found), out)
    except OSError as e:
        raise OSError(e.errno, f"{out}: {e.strerror}") from e


def _validated(path: Path | None, data: object, model: type[T]) -> T:
    """`data` read from `path` as `model`; UsageError names the file and the field."""
    try:
        return TypeAdapter(model).validate_python(data)
    except ValidationError as e:
        raise UsageError(jsonfile.invalid(path, e)) from None
