"""How often `optimize --screen` keeps a change that matters and offers for removal one that
does nothing, on simulated runs (a fixed seed) as the lab measures them: one design of runs over
the rules (stats.factorial, sized as the screening sizes it) measured once per run on the metric
the plan moved (sequential writes over NFS), fitted with the interleaved pairs that proved the
plan (the fewest optimize measures, PAIRS, each side shifted together by the time between), the
first rule moving it by CHANGES, the others by nothing, at the spreads of SPREADS, with 2 rules
(as the lab's scenario of bench/screen_heldout.py) and 9 (as soho's main job has). A rule is
offered only when its interval lies below the margin (jobs.keeping). Records every cell in
bench/results/screen-simulated.json.

    .venv/bin/python bench/screen_simulated.py [--trials 1000]"""

from __future__ import annotations

import argparse
import json

import numpy as np
from record import RESULTS, write

from nastune import wire
from nastune.jobs.keeping import Screened, decide
from nastune.outcomes.screen import summed
from nastune.stats.factorial import design, effects, together
from nastune.wire import Verdict

MATTERS = "matters"
SPREADS = (0.01, 0.02, 0.03, 0.05)  # one run's spread (log-normal); the lab's shaped link: 0.4-1.7%
CHANGES = (0.05, 0.1, 0.17)  # what the rule that matters does to NFS writes
RULES = (2, 9)
PAIRS = 3  # optimize's --min-pairs: the fewest pairs a moved workload has
DRIFT = 0.02  # the spread of the shift between the pairs and the screening's runs
TARGET = "nfs://nas/data"


def spare() -> int:
    return 2 * PAIRS - 1  # as jobs.screen counts the pairs' degrees of freedom


def _pairs(rng: np.random.Generator, change: float, spread: float) -> tuple[list[float], list[float]]:
    shift = rng.normal(0, DRIFT)
    off = 100 * np.exp(shift + rng.normal(0, spread, PAIRS))
    on = 100 * np.exp(shift + np.log1p(change) + rng.normal(0, spread, PAIRS))
    return list(off), list(on)


def screening(
    rng: np.random.Generator, rules: int, change: float, spread: float
) -> tuple[list[Screened], list[wire.Together]]:
    """One screening simulated: the first rule moves NFS writes by `change`, the others nothing."""
    runs = design(rules, spare())
    values = list(100 * np.exp(np.log1p(change) * (runs[:, 0] > 0) + rng.normal(0, spread, len(runs))))
    pairs = _pairs(rng, change, spread)
    names = [MATTERS] + [f"nothing-{n}" for n in range(1, rules)]
    rows = [Verdict.of("seq-write", TARGET, "MB/s", "MB/s", True, None, e) for e in effects(runs, values, pairs=pairs)]
    found = together(runs, values, pairs)
    sums = [summed(f"seq-write @ {TARGET} MB/s", found, names)] if found else []
    return [Screened(rule=name, changes=1, rows=[row]) for name, row in zip(names, rows)], sums


def simulated(change: float, spread: float, trials: int, rules: int, seed: int = 7) -> dict[str, float]:
    """The share of screenings that told the rules apart (the one that matters kept, every other
    offered), that offered the one that matters, and of the rules that do nothing offered."""
    rng = np.random.default_rng(seed)
    apart = lost = offered_nothing = 0
    for _ in range(trials):
        screened, sums = screening(rng, rules, change, spread)
        _, offered = decide(screened, sums)
        apart += offered == [s.rule for s in screened[1:]]
        lost += MATTERS in offered
        offered_nothing += len([r for r in offered if r != MATTERS])
    return {
        "apart": apart / trials,
        "matters_offered": lost / trials,
        "nothing_offered": offered_nothing / trials / (rules - 1),
    }


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
