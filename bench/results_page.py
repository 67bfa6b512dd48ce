"""Renders every figure the documents state from the bench records: each `<!-- figures: NAME -->`
block of README.md, CONTRIBUTING.md, docs/ and the rules' docs from bench/figures.py, and docs/results.md's index of
every record (what it measured, against which goal fixed before the run, whether it was met, the
commit, date and machine), so a reader reaches every figure's source from one page.

    .venv/bin/python bench/results_page.py [--check]"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from pathlib import Path

from figures import FIGURES
from record import RESULTS, TOP

PAGE = TOP / "docs" / "results.md"
BEGIN, END = "<!-- records: written by bench/results_page.py -->", "<!-- end of records -->"
BLOCK = re.compile(r"(<!-- figures: ([\w-]+) -->\n)(?:.*?\n)??(<!-- end of figures -->)", re.S)


def met(record: dict) -> str:
    result = record.get("result")
    found = record.get("met", result.get("met") if isinstance(result, dict) else None)
    return {True: "met", False: "**not met**", None: "-"}[found]


def goal(record: dict) -> str:
    stated = record.get("goal", record.get("what"))
    if isinstance(record.get("goal_ratio"), (int, float)):
        stated = f"each command's start at most {record['goal_ratio']:g}x `python -c pass`"
    return str(stated or "-").replace("|", "\\|").replace("\n", " ")


SETTINGS = {"budget", "size", "repeats", "seed", "min_pairs", "max_pairs", "goal_ratio", "workload", "met"}


def measured(record: dict) -> str:
    """The record's headline numbers: its result's scalars, and its own numeric fields that are
    not settings of the run (the full detail stays in the record)."""
    result = record.get("result")
    fields = {**(result if isinstance(result, dict) else {}), **record}
    found = {
        k: v for k, v in fields.items() if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in SETTINGS
    }
    return ", ".join(f"{k} {v:g}" for k, v in found.items()) or "see the record"


def table() -> str:
    rows = [
        "| record | measured by | goal | measured | | commit | date | machine |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for path in sorted(RESULTS.glob("*.json")):
        record = json.loads(path.read_text())
        host = record.get("host", {})
        rows.append(
            f"| [{path.stem}](../bench/results/{path.name}) | `{' '.join(record.get('command', [])[:1])}` "
            f"| {goal(record)} | {measured(record)} | {met(record)} | {record.get('commit', '')[:9]} "
            f"| {record.get('date', '')[:10]} | {host.get('cpus', '?')} CPUs, Python {host.get('python', '?')} |"
        )
    return "\n".join(rows)


def documents() -> list[Path]:
    return [
        TOP / "README.md",
        TOP / "CONTRIBUTING.md",
        *sorted((TOP / "docs").glob("*.md")),
        *sorted(TOP.glob("src/nastune/rules/catalog/*.py")),  # a rule's page is its docstring
    ]


def wrapped(markdown: str) -> str:
    """Prose paragraphs wrapped as the hand-written ones are; tables, lists and code as rendered."""
    keep = ("|", "```", "- ")
    return "\n\n".join(
        p if p.startswith(keep) else textwrap.fill(p, 100, break_on_hyphens=False) for p in markdown.split("\n\n")
    )


def block(path: Path, name: str) -> str:
    """A figure block for one document: the renderers link as docs/ does, the README from the top."""
    text = wrapped(FIGURES[name]())
    return text.replace("](../", "](") if path.parent == TOP else text


def rendered(path: Path, text: str) -> str:
    text = BLOCK.sub(lambda m: f"{m[1]}{block(path, m[2])}\n{m[3]}", text)
    if path != PAGE:
        return text
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{table()}\n{END}{tail}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 naming each document not as rendered")
    args = parser.parse_args()
    stale = []
    for path in documents():
        text = path.read_text()
        if rendered(path, text) == text:
            continue
        stale.append(path)
        if not args.check:
            path.write_text(rendered(path, text))
            print(f"wrote {path.relative_to(TOP)}")
    if args.check and stale:
        sys.exit("not as rendered (run bench/results_page.py): " + ", ".join(str(p.relative_to(TOP)) for p in stale))


if __name__ == "__main__":
    main()
