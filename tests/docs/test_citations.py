"""What a user reads names its sources as a reader can find them (title, author, year, address),
never by the project's internal shorthand: document numbers 001-004, "the seeds", a notes file
that does not ship, or a tool outside the repository."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer

from nastune.cli import app
from nastune.lab import scenario
from nastune.rules import all_rules
from tests.conftest import ROOTS, extracted, run_cli

REPO = Path(__file__).parents[2]
SHORTHAND = re.compile(r"(?<![\w.,])00[1-4]\b|\bseeds'|\bseed (?:documents|00)|KNOWLEDGE\.md|\.\./shared")
DOCS = [
    "README.md",
    "CONTRIBUTING.md",
    "ARCHITECTURE.md",
    *(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md")),
]


def shorthand(text: str) -> list[str]:
    return [line for line in text.splitlines() if SHORTHAND.search(line)]


def test_the_pattern_catches_each_kind_of_shorthand_and_spares_numbers():
    caught = ["(001 2.6)", "as in seed 003", "the seeds' flow", "KNOWLEDGE.md section 6", "../shared/tools/ci-local"]
    assert all(shorthand(t) for t in caught)
    assert not shorthand("p < 0.001, 1.001x, 55,001 entries, section 2.7, --seed 3, 10 seeds")


def _helps(command: Any, ctx: typer.Context) -> list[str]:
    texts = [command.get_help(ctx)]
    for name, sub in getattr(command, "commands", {}).items():
        texts += _helps(sub, typer.Context(sub, info_name=name, parent=ctx))
    return texts


def test_no_help_text_uses_internal_shorthand():
    root = typer.main.get_command(app)
    helps = _helps(root, typer.Context(root, info_name="nastune"))
    assert len(helps) > 30
    assert [line for text in helps for line in shorthand(text)] == []


def test_no_rule_text_uses_internal_shorthand():
    rules = all_rules()
    texts = [r.title + "\n" + r.gain + "\n" + r.tradeoff + "\n" + r.source + "\n" + r.doc for r in rules]
    assert [(r.id, shorthand(t)) for r, t in zip(rules, texts) if shorthand(t)] == []
    assert any("Linux Gazette 185" in r.source for r in rules)


@pytest.mark.parametrize("system", sorted(p.name.removesuffix(".tar.gz") for p in ROOTS.glob("*.tar.gz")))
def test_no_finding_uses_internal_shorthand(system, tmp_path):
    shown = run_cli("diagnose", "--root", str(extracted(system, tmp_path)), "--json", check=False)
    assert shown.returncode in (0, 1), shown.stderr
    assert shorthand(shown.stdout) == []


def test_no_document_workload_or_scenario_uses_internal_shorthand():
    found = {doc: shorthand((REPO / doc).read_text()) for doc in DOCS}
    found["bench list"] = shorthand(run_cli("bench", "list").stdout)
    found |= {path.name: shorthand(path.read_text()) for path in scenario.HERE.glob("*.toml")}
    found["report template"] = shorthand((REPO / "src/nastune/report/templates/report.html.j2").read_text())
    assert {k: v for k, v in found.items() if v} == {}
