"""The interleaved run's comparison, pair by pair (stats.paired) against the unpaired rank test it
replaced (stats.compare), through the whole sequential procedure of `ab`: looks from pair 5 to
12, each at 0.05 / 8, a workload stopped when settled, the noise floor 3%. Simulated runs, so
thousands of trials fit in minutes; the lab's own noisy runs are bench/noise.py's.

Conditions: a calm system at CV 2%, 5% and 8% (log-normal), heavy tails (Student's t, 3 degrees
of freedom, scaled to CV 3%), and a disturbance like noise.py's: for a third of the run, starting
at a random moment in its first two thirds, throughput falls by 5-40% (one level per run), each
disturbed repeat varying around it by 5% or 15%. Within a pair, A and B come in random order.

Goal (fixed before the recorded run, after a first one of 200 trials that is not recorded): the
paired comparison's A/A false verdicts <= 5% in every condition; a real 10% change found more
often than by the rank test under both disturbances, and at most 5 points less often when calm
(trimming costs a little power when nothing disturbs the run). A first recorded run (493bc94)
trimmed from 5 pairs on and met it too; trimming from 6 on (stats.paired.TRIMMED_FROM) took a
clear change at CV 2% in 5.05 pairs instead of 5.77 in a run of 150 trials, so it replaced it.

    .venv/bin/python bench/paired.py [--trials 400] [--seed 1] [--out bench/results/paired.json]"""

from __future__ import annotations

import argparse
import math
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from record import RESULTS, write

from nastune.stats.compare import ALPHA, NOISE_FLOOR, compare, settled
from nastune.stats.paired import compare_pairs

SCHEDULES = {"ab": (5, 12), "optimize": (3, 8)}  # the first and last look of each job's defaults
GOALS = {
    "ab": "paired: A/A false verdicts <= 5% in every condition; a 10% change found more often than by the rank "
    "test when disturbed, at most 5 points less often when calm",
    "optimize": "paired: A/A false verdicts <= 5% in every condition; a 10% change found more often than by the "
    "rank test when disturbed, and >= 95% at CV 2% in fewer pairs than ab's schedule (5.17, paired.json)",
}
AB_PAIRS_CV2 = 5.17  # the mean pairs paired.json recorded for ab's schedule, calm CV 2%, 10% change
CONDITIONS = {  # name: (cv, noise, disturbance jitter or None)
    "calm, CV 2%": (0.02, "normal", None),
    "calm, CV 5%": (0.05, "normal", None),
    "calm, CV 8%": (0.08, "normal", None),
    "heavy tails, CV 3%": (0.03, "t3", None),
    "disturbed, jitter 5%": (0.02, "normal", 0.05),
    "disturbed, jitter 15%": (0.02, "normal", 0.15),
}
METHODS = {"rank": compare, "paired": compare_pairs}


def draws(rng: np.random.Generator, noise: str, cv: float, n: int) -> np.ndarray:
    if noise == "t3":
        return rng.standard_t(3, n) * cv / math.sqrt(3)  # t3's variance is 3
    return rng.normal(0, cv, n)


def series(rng: np.random.Generator, change: float, condition: str, pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """`pairs` pairs of one run: A's and B's throughput, each pair's two in random order."""
    cv, noise, jitter = CONDITIONS[condition]
    a = 100 * np.exp(draws(rng, noise, cv, pairs))
    b = 100 * (1 + change) * np.exp(draws(rng, noise, cv, pairs))
    if jitter is not None:
        a_first = rng.random(pairs) < 0.5
        at = np.arange(pairs) + np.where(a_first, 0.25, 0.75)  # when in the run each was measured
        bt = np.arange(pairs) + np.where(a_first, 0.75, 0.25)
        start = rng.uniform(0, 2 * pairs / 3)
        level = rng.uniform(0.05, 0.40)
        for values, times in ((a, at), (b, bt)):
            hit = (times >= start) & (times < start + pairs / 3)
            values[hit] *= (1 - level) * np.exp(rng.normal(0, jitter, hit.sum()))
    return a, b


def trial(job: tuple[str, float, str, int, tuple[int, int]]) -> tuple[str, int]:
    """One sequential run: its verdict and the pairs it took."""
    condition, change, method, seed, (first, last) = job
    a, b = series(np.random.default_rng(seed), change, condition, last)
    alpha = ALPHA / (last - first + 1)
    for n in range(first, last + 1):
        c = METHODS[method](list(a[:n]), list(b[:n]), True, NOISE_FLOOR, alpha)
        if settled(c, NOISE_FLOOR):
            break
    return c.verdict, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1, help="0 drew the first, unrecorded run")
    parser.add_argument("--schedule", choices=SCHEDULES, default="ab", help="whose looks: ab 5..12, optimize 3..8")
    parser.add_argument("--out", type=Path, help="default bench/results/paired.json (ab), paired-optimize.json")
    args = parser.parse_args()
    schedule = SCHEDULES[args.schedule]
    out = args.out or RESULTS / ("paired.json" if args.schedule == "ab" else "paired-optimize.json")
    cells = []
    with Pool() as pool:
        for c_index, condition in enumerate(CONDITIONS):
            for change in (0.0, -0.10):
                cell: dict = {"condition": condition, "change": change, "trials": args.trials}
                for method in METHODS:  # the same runs for both: seeds by condition, change and trial
                    seeds = [args.seed * 10**7 + (2 * c_index + (change != 0)) * 10**5 + t for t in range(args.trials)]
                    done = pool.map(trial, [(condition, change, method, s, schedule) for s in seeds])
                    called = [v != "~" if change == 0 else v == "worse" for v, _ in done]
                    cell[method] = {
                        "false" if change == 0 else "found": sum(called),
                        "mean_pairs": round(float(np.mean([n for _, n in done])), 2),
                    }
                cells.append(cell)
                what = "A/A false verdicts" if change == 0 else "10% change found"
                key = "false" if change == 0 else "found"
                shown = ", ".join(
                    f"{m} {cell[m][key] / args.trials:.1%} ({cell[m]['mean_pairs']} pairs)" for m in METHODS
                )
                print(f"{condition}: {what}: {shown}", flush=True)
    aa = [c for c in cells if c["change"] == 0]
    real = [c for c in cells if c["change"] != 0]
    disturbed = [c for c in real if CONDITIONS[c["condition"]][2] is not None]
    met = all(c["paired"]["false"] <= 0.05 * args.trials for c in aa) and all(
        c["paired"]["found"] > c["rank"]["found"] for c in disturbed
    )
    calm = [c for c in real if CONDITIONS[c["condition"]][2] is None]
    if args.schedule == "ab":
        met = met and all(c["paired"]["found"] >= c["rank"]["found"] - 0.05 * args.trials for c in calm)
    else:
        cv2 = next(c["paired"] for c in calm if c["condition"] == "calm, CV 2%")
        met = met and cv2["found"] >= 0.95 * args.trials and cv2["mean_pairs"] < AB_PAIRS_CV2
    goal = GOALS[args.schedule]
    print(f"goal ({goal}): {'met' if met else 'NOT met'}")
    write("paired", out, goal=goal, met=met, seed=args.seed, min_pairs=schedule[0], max_pairs=schedule[1], cells=cells)


if __name__ == "__main__":
    main()
