"""How often `optimize --screen` tells a change that matters from one that does nothing, on
simulated runs (a fixed seed) as the lab measures them: one design of runs over the rules
(stats.factorial, sized as the screening sizes it) measured once per run on three metrics
(sequential writes over SMB, NFS and FTP), fitted with the interleaved pairs that proved the plan
(the fewest optimize measures, PAIRS, each side shifted together by the time between), a change
that matters moving NFS writes, at the spreads and changes of SPREADS and CHANGES, with 2 rules
(as the lab's run of bench/screen_apart.py) and 9 (as soho's main job has). Records every cell
in bench/results/screen-simulated.json.

    .venv/bin/python bench/screen_simulated.py [--trials 1000]"""

from __future__ import annotations

import argparse
import json

import numpy as np
from record import RESULTS, write

from nastune.jobs.screen import Screened, idle
from nastune.stats.factorial import design, effects
from nastune.stats.runs import Row

MATTERS = "matters"
SPREADS = (0.02, 0.03, 0.05)  # one run's spread (log-normal); soho's NFS writes: about 3%
CHANGES = (0.1, 0.17, 0.25, 0.5)  # what the rule that matters does to NFS writes
RULES = (2, 9)
PAIRS = 3  # optimize's --min-pairs: the fewest pairs a moved workload has
DRIFT = 0.02  # the spread of the shift between the pairs and the screening's runs
TARGETS = ("smb://nas/data", "nfs://nas/data", "ftp://nas/pub")


def spare() -> int:
    return 2 * PAIRS - 1  # as jobs.screen counts the pairs' degrees of freedom


def _pairs(rng: np.random.Generator, change: float, spread: float) -> tuple[list[float], list[float]]:
    shift = rng.normal(0, DRIFT)
    off = 100 * np.exp(shift + rng.normal(0, spread, PAIRS))
    on = 100 * np.exp(shift + np.log1p(change) + rng.normal(0, spread, PAIRS))
    return list(off), list(on)


def screening(rng: np.random.Generator, rules: int, nfs_change: float, spread: float) -> list[Screened]:
    """One screening simulated: the first rule moves NFS writes by `nfs_change`, the others nothing."""
    runs = design(rules, spare())
    found: list[list[Row]] = [[] for _ in range(rules)]
    for target in TARGETS:
        change = nfs_change if target.startswith("nfs") else 0.0
        values = 100 * np.exp(np.log1p(change) * (runs[:, 0] > 0) + rng.normal(0, spread, len(runs)))
        pairs = _pairs(rng, change, spread)
        for rows, effect in zip(found, effects(runs, list(values), pairs=pairs)):
            rows.append(Row("seq-write", target, "MB/s", "MB/s", True, None, effect))
    names = [MATTERS] + [f"nothing-{n}" for n in range(1, rules)]
    return [Screened(name, 1, rows) for name, rows in zip(names, found)]


def simulated(change: float, spread: float, trials: int, rules: int, seed: int = 7) -> dict[str, float]:
    """The share of screenings that told the rules apart (the one that matters kept, every other
    left off), that left off the one that matters, and of the rules that do nothing kept."""
    rng = np.random.default_rng(seed)
    apart = lost = kept = 0
    for _ in range(trials):
        screened = screening(rng, rules, change, spread)
        apart += idle(screened) == ([MATTERS], [s.rule for s in screened[1:]])
        lost += screened[0].idle
        kept += sum(not s.idle for s in screened[1:])
    return {"apart": apart / trials, "matters_left_off": lost / trials, "nothing_kept": kept / trials / (rules - 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000)
    args = parser.parse_args()
    cells = []
    for rules in RULES:
        for spread in SPREADS:
            for change in CHANGES:
                cells.append({"rules": rules, "spread": spread, "change": change})
                cells[-1].update(simulated(change, spread, args.trials, rules))
                print(json.dumps(cells[-1]), flush=True)
    write(
        "screen-simulated",
        RESULTS / "screen-simulated.json",
        runs_per_screening={rules: len(design(rules, spare())) for rules in RULES},
        pairs=PAIRS,
        drift=DRIFT,
        trials=args.trials,
        simulation=cells,
    )


if __name__ == "__main__":
    main()
