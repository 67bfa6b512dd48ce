"""Which change bought what on the lab's soho scenario: optimize --screen with sequential writes,
then each rule's settings alone against none of them (3 pairs each), as an operator sees them.
Prints each rule's verdicts (medians without and with it alone, change and its interval) and
records them with every repeat of both sides in bench/results/screen-soho.json.

    .venv/bin/python bench/screen_soho.py [--workload seq-write] [--max-pairs 4]"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import RESULTS, write


def repeats(side: Path) -> dict[str, list[float]]:
    """Every repeat of one side of a rule's interleaved run, by "workload @ target metric"."""
    if not side.exists():
        return {}
    results = json.loads(side.read_text())["results"]
    return {
        f"{r['workload']} @ {r['target']['url']} {m}": v["values"] for r in results for m, v in r["metrics"].items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="seq-write")
    parser.add_argument("--max-pairs", default="4")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "optimize"
        argv = [sys.executable, "-m", "nastune", "optimize", "--lab", "--yes", "--screen", "-w", args.workload]
        start = time.monotonic()
        subprocess.run([*argv, "--max-pairs", args.max_pairs, "--out", str(out)], check=True, capture_output=True)
        took = time.monotonic() - start
        screened = json.loads((out / "compare.json").read_text())["interleaved"]["screened"]
        for rule in screened:
            rule["a"], rule["b"] = (
                repeats(out / "interleaved" / "screen" / rule["rule"] / f"{s}.json") for s in ("a", "b")
            )
    print(f"optimize --screen on soho, {args.workload}: {took:.0f} s in all")
    for rule in screened:
        moved = [r for r in rule["rows"] if r["verdict"] != "~"]
        print(f"{rule['rule']} ({rule['changes']} changes): {rule['stopped'] or ('' if moved else 'no change')}")
        for r in moved:
            low, high = r["change_ci"]
            interval = f"{low:+.0%}..{high:+.0%}" if low is not None and high is not None else "no interval"
            print(
                f"  {r['workload']} @ {r['target']}: {r['before_median']:.1f} -> {r['after_median']:.1f} {r['unit']} "
                f"({r['change']:+.0%}, {interval}) {r['verdict']}"
            )
    write("screen-soho", RESULTS / "screen-soho.json", seconds=round(took), workload=args.workload, rules=screened)


if __name__ == "__main__":
    main()
