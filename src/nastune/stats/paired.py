"""Comparing interleaved pairs: each pair's B against its own A, measured moments apart. A
disturbance that lasts longer than a pair (a backup, a CPU hog, a competing transfer) moves both
of a pair alike and cancels in their ratio, where the unpaired rank test of `compare` counts it
as spread on both sides and needs many more pairs to see through it.

The change is the 20%-trimmed mean of the pairs' log ratios (B/A), its interval and p from
Yuen's trimmed t (Tukey and McLaughlin; Wilcox, Introduction to Robust Estimation): a pair that
a disturbance's start or end split (one side hit, the other not) is trimmed instead of widening
the interval, as a plain paired t would let it. Up to 5 pairs nothing is trimmed (the plain
paired t): trimming there cost a clear change most of a pair more. A randomization test on the
pairs' signs would be exact, but its smallest p is 2 / 2^n: no verdict before 9 pairs at a
look's share of 5%. bench/paired.py records the whole procedure (looks, noise floor, trimming)
against the rank test on simulated interleaved runs: A/A false verdicts and a 10% change found,
calm and under disturbances."""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import t as t_dist

from nastune.errors import UsageError
from nastune.stats.compare import ALPHA, NOISE_FLOOR, checked, median_ci, seeded, verdict_of
from nastune.wire import Comparison

TRIM = 0.2  # the share of pairs trimmed from each end (Wilcox's usual choice)
TRIMMED_FROM = 6  # pairs: at 5, trimming one from each end would leave a t with 2 degrees of freedom
LEVEL = 0.95  # the change interval's coverage, as `compare` gives


def trimmed_t(d: np.ndarray, trim: float = TRIM) -> tuple[float, float, int]:
    """The trimmed mean of `d`, its standard error (from the winsorized variance) and the degrees
    of freedom; with no pair trimmed (fewer than TRIMMED_FROM), the plain paired t."""
    n = len(d)
    k = math.floor(trim * n) if n >= TRIMMED_FROM else 0
    ordered = np.sort(d)
    kept = ordered[k : n - k]
    winsorized = np.clip(ordered, kept[0], kept[-1])
    se = float(np.std(winsorized, ddof=1)) / ((1 - 2 * k / n) * math.sqrt(n))
    return float(kept.mean()), se, len(kept) - 1


def compare_pairs(
    before: list[float],
    after: list[float],
    higher_is_better: bool = True,
    noise_floor: float = NOISE_FLOOR,
    alpha: float = ALPHA,
) -> Comparison:
    """`before[i]` and `after[i]` are pair i's A and B; a verdict needs p < alpha and the whole
    95% interval of the change beyond the noise floor, as `compare`'s does."""
    a, b = checked(before, after)
    if len(a) != len(b):
        raise UsageError(f"pairs need as many A values as B values ({len(a)} and {len(b)})")
    d = np.log(b) - np.log(a)
    centre, p, change_ci = float(np.median(d)), 1.0, (-math.inf, math.inf)
    if len(d) > 1:
        centre, se, df = trimmed_t(d)
        if se > 0:
            p = float(2 * t_dist.sf(abs(centre) / se, df))
            half = float(t_dist.ppf(0.5 + LEVEL / 2, df)) * se
            change_ci = (math.expm1(centre - half), math.expm1(centre + half))
        else:  # every pair moved alike: known exactly
            p = 0.0 if centre else 1.0
            change_ci = (math.expm1(centre), math.expm1(centre))
    rng = seeded(a, b)
    verdict, detectable = verdict_of(p, change_ci, higher_is_better, noise_floor, alpha)
    return Comparison(
        before_median=float(np.median(a)),
        before_ci=median_ci(a, rng),
        after_median=float(np.median(b)),
        after_ci=median_ci(b, rng),
        change=math.expm1(centre),
        change_ci=change_ci,
        p_value=p,
        verdict=verdict,
        min_p=0.0,  # a t test can reach any p: no floor from the sample sizes
        detectable=detectable,
        sizes=(len(a), len(b)),
    )
