"""Renders the index of every recorded bench run into docs/results.md (between its markers): what
each record measured, against which goal fixed before the run, whether it was met, and the
commit, date and machine, so a reader reaches every figure's source from one page.

    .venv/bin/python bench/results_page.py [--check]"""

from __future__ import annotations

import argparse
import json
import sys

from record import RESULTS, TOP

PAGE = TOP / "docs" / "results.md"
BEGIN, END = "<!-- records: written by bench/results_page.py -->", "<!-- end of records -->"


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


def rendered(page: str) -> str:
    head, _, rest = page.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{table()}\n{END}{tail}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is not as rendered")
    args = parser.parse_args()
    page = PAGE.read_text()
    if args.check:
        sys.exit(0 if rendered(page) == page else 1)
    PAGE.write_text(rendered(page))
    print(f"wrote {PAGE}")


if __name__ == "__main__":
    main()
