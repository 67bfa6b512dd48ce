"""Comparing two runs the way MiNET's 2013 benchmark did, with the arithmetic made explicit: medians with 95%
bootstrap intervals, the relative change with its interval, a Mann-Whitney U test, and a
verdict that counts a change only when it is significant (p < 0.05) and its whole interval
lies beyond the noise floor (3%: the runs of MiNET's 2013 benchmark on one machine differed by 3% on average).

The rank test's p-value is exact (the whole permutation distribution of U, ties at their mid
ranks) whenever the samples are small enough to enumerate: scipy's normal approximation calls
three repeats of 100 against three of 110 significant (p = 0.047) where the exact p is 0.100,
and fio's latency percentiles, which come in histogram steps, tie often. A "~" says how large a
change this comparison could have shown (`detectable`), since "~" is not "no change".

The change interval is a bootstrap percentile interval of the ratio of medians, which covers less
than it says on few repeats (bench/coverage.py records it: the plain 95% interval beside this
one). No interval can do better than 1 - 2 / C(n_a + n_b, n_a) from the ranks alone (90% at
3 + 3), so below 95% there none is given ("too few repeats for an interval"), and up to 4 repeats
a side the 99% percentiles are used."""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.stats import mannwhitneyu, rankdata

from nastune.errors import UsageError
from nastune.wire import Comparison, Judged

NOISE_FLOOR = 0.03
ALPHA = 0.05
RESAMPLES = 10000
SMALL = 4  # repeats a side up to which the bootstrap's 95% interval under-covers: 99% is used
EXACT_LIMIT = 50_000  # enumerate the permutation distribution up to this many splits (9 + 9 repeats)


def seeded(values_a: np.ndarray, values_b: np.ndarray) -> np.random.Generator:
    """Seeded by the data, so the same two runs always give the same intervals."""
    seed = abs(hash(tuple(np.round(np.concatenate([values_a, values_b]), 9)))) % (2**32)
    return np.random.default_rng(seed)


def verdict_of(
    p: float,
    change_ci: tuple[float, float],
    higher_is_better: bool,
    noise_floor: float,
    alpha: float,
    reachable: bool = True,
) -> tuple[Judged, float | None]:
    """The verdict (better, worse, ~: p < alpha and the whole interval beyond the noise floor)
    and, for "~", the smallest change this comparison could have called (None where the sample
    sizes cannot reach alpha, or there is no interval)."""
    low, high = change_ci
    if p < alpha and (low > noise_floor or high < -noise_floor):
        return ("better" if (low > noise_floor) == higher_is_better else "worse"), None
    if not (reachable and math.isfinite(low) and math.isfinite(high)):
        return "~", None
    # to be called, a change's interval (about this wide) must clear the noise floor; and the
    # wording is never narrower than this interval itself
    return "~", max(noise_floor + (high - low) / 2, abs(low), abs(high))


def settled(c: Comparison, noise_floor: float = NOISE_FLOOR) -> bool:
    """Whether more repeats are not worth their time: a verdict; an interval inside the noise
    floor; or a change of known sign whose interval straddles the floor and is no wider than the
    floor either way (2.4..7.1% with a 3% floor), where more repeats would only say on which side
    of the floor it lies. An interval clear of the floor without a verdict (p not yet below the
    look's alpha) is not settled: more repeats decide it."""
    low, high = c.change_ci
    if c.verdict != "~" or (-noise_floor < low and high < noise_floor):
        return True
    straddles = 0 < low < noise_floor < high or low < -noise_floor < high < 0
    return straddles and high - low <= 2 * noise_floor


def smallest_p(n_a: int, n_b: int) -> float:
    """The smallest two-sided p a rank test can reach with these sample sizes."""
    return min(1.0, 2 / math.comb(n_a + n_b, n_a))


def rank_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided Mann-Whitney p: exact (permutations, ties at mid ranks) for small samples,
    scipy's tie-corrected normal approximation beyond."""
    n_a, n = len(a), len(a) + len(b)
    ranks = rankdata(np.concatenate([a, b]))
    if np.all(ranks == ranks[0]):
        return 1.0
    if math.comb(n, n_a) > EXACT_LIMIT:
        return float(mannwhitneyu(a, b, alternative="two-sided", method="asymptotic").pvalue)
    sums = np.fromiter(
        (sum(c) for c in itertools.combinations(ranks.tolist(), n_a)), dtype=float, count=math.comb(n, n_a)
    )
    # twice the smaller one-sided tail, as scipy and benchstat do: with ties and unequal sizes the
    # rank-sum distribution is not symmetric, and |S - centre| would count one tail only
    observed = ranks[:n_a].sum()
    upper, lower = np.mean(sums >= observed - 1e-9), np.mean(sums <= observed + 1e-9)
    return float(min(1.0, 2 * min(upper, lower)))


def median_ci(values: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
    if len(values) < 2:
        return float(values[0]), float(values[0])
    samples = np.median(rng.choice(values, size=(RESAMPLES, len(values))), axis=1)
    return float(np.percentile(samples, 2.5)), float(np.percentile(samples, 97.5))


def checked(before: list[float], after: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """Both sides as arrays; ValueError for a side that is empty or holds a value no ratio can
    be taken of (zero, negative, infinite, NaN)."""
    a, b = np.asarray(before, float), np.asarray(after, float)
    for side, values in (("before", a), ("after", b)):
        if values.size == 0:
            raise UsageError(f"no {side} values to compare")
        if not np.all(np.isfinite(values)) or np.any(values <= 0):
            raise UsageError(f"the {side} values must be finite and positive")
    return a, b


def compare(
    before: list[float],
    after: list[float],
    higher_is_better: bool = True,
    noise_floor: float = NOISE_FLOOR,
    alpha: float = ALPHA,
) -> Comparison:
    a, b = checked(before, after)
    rng = seeded(a, b)
    ma, mb = float(np.median(a)), float(np.median(b))
    floor_p = smallest_p(len(a), len(b))
    change_ci = (-np.inf, np.inf)  # too few repeats for an interval that covers 95%
    p = rank_p(a, b) if len(a) > 1 and len(b) > 1 else 1.0  # one value per side proves nothing
    if floor_p <= alpha:
        tail = 0.5 if min(len(a), len(b)) <= SMALL else 2.5
        ratios = (
            np.median(rng.choice(b, size=(RESAMPLES, len(b))), axis=1)
            / np.median(rng.choice(a, size=(RESAMPLES, len(a))), axis=1)
        ) - 1
        change_ci = (float(np.percentile(ratios, tail)), float(np.percentile(ratios, 100 - tail)))
    verdict, detectable = verdict_of(p, change_ci, higher_is_better, noise_floor, alpha, floor_p < alpha)
    return Comparison(
        before_median=ma,
        before_ci=median_ci(a, rng),
        after_median=mb,
        after_ci=median_ci(b, rng),
        change=mb / ma - 1,
        change_ci=change_ci,
        p_value=p,
        verdict=verdict,
        min_p=floor_p,
        detectable=detectable,
        sizes=(len(a), len(b)),
    )
