"""Each factor's own effect from one two-level design (Plackett and Burman, Biometrika 1946; the
regular fractions of Box, Hunter and Hunter, "Statistics for Experimenters", 2005, ch. 6): every
run switches about half the factors on, and each factor's effect is the difference between the
runs with it and those without, so all runs serve every estimate. With k factors, one at a time
against none needs k comparisons of a few pairs each; this needs one run per row of a design of
at least k + 1 rows, and each estimate compares half the runs with the other half.

The design's columns are those of a Hadamard matrix (Sylvester's, scipy.linalg.hadamard, for a
power of two; Plackett and Burman's cyclic ones for 12, 20 and 24 rows), which are orthogonal:
each effect is estimated independently of the others' main effects. It is of resolution III: an
interaction of two factors (TCP buffers with the MTU) is confounded with a third factor's effect,
which the notes of whoever uses it say.

The spread that the intervals use comes from the columns no factor takes and, where the caller
measured every factor off and every factor on in pairs already (optimize's interleaved proof),
from those repeats too: they are fitted with the runs, with a term of their own for the time
between (a shift of every value), so they add degrees of freedom but no effect. With them the
design may be smaller, as long as its intervals stay about as narrow as those of the design
that needs none."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy.linalg import hadamard
from scipy.stats import t as t_dist

from nastune.errors import UsageError
from nastune.stats.compare import ALPHA, NOISE_FLOOR, verdict_of
from nastune.stats.paired import LEVEL
from nastune.wire import Comparison

MIN_DF = 4  # degrees of freedom left for the spread: t(4) widens an interval 2.8x, t(2) 4.3x
WIDER = 1.15  # how much wider than without the pairs a smaller design's intervals may be
# the first row of Plackett and Burman's cyclic designs (1946, table 1); the others are its shifts
CYCLIC = {
    12: "++-+++---+-",
    20: "++--++++-+-+----++-",
    24: "+++++-+-++--++--+-+----",
}


@cache
def _columns(rows: int) -> np.ndarray:
    """`rows` x (rows - 1) orthogonal columns of +1 and -1, each on in half the rows."""
    if rows & (rows - 1) == 0:
        return hadamard(rows)[:, 1:]
    first = np.array([1 if c == "+" else -1 for c in CYCLIC[rows]])
    return np.vstack([np.roll(first, i) for i in range(rows - 1)] + [-np.ones(rows - 1, dtype=int)])


def _orders(least: int, most: int) -> list[int]:
    """The designs' sizes from `least` rows to `most` (a power of two), fewest first."""
    return [n for n in sorted({*CYCLIC, *(2**i for i in range(2, int(math.log2(most)) + 1))}) if least <= n <= most]


def _width(rows: int, df: int) -> float:
    """An effect's interval in units of one run's spread: t quantile times its standard error."""
    return float(t_dist.ppf(0.5 + LEVEL / 2, df)) * 2 / math.sqrt(rows)


def design(factors: int, spare: int = 0) -> np.ndarray:
    """Rows: runs; columns: factors, +1 on and -1 off. Without `spare`, the fewest rows, a power
    of two, that leave MIN_DF columns for the spread (Sylvester's: the all-on row first). `spare`:
    the degrees of freedom repeats measured apart add (see the module's doc): then the fewest rows
    whose intervals are at most WIDER than those (Plackett and Burman's: the all-off row last)."""
    if factors < 1:
        raise UsageError("a design needs one factor at least")
    rows = 2 ** math.ceil(math.log2(factors + 1 + MIN_DF))
    if spare > 0:
        own = _width(rows, rows - 1 - factors)
        rows = next(n for n in _orders(factors + 2, rows) if _width(n, n - 1 - factors + spare) <= WIDER * own)
    return _columns(rows)[:, :factors]


Pairs = tuple[list[float], list[float]]  # repeats measured apart: every factor off, every factor on


def effects(
    runs: np.ndarray,
    values: list[float],
    higher_is_better: bool = True,
    noise_floor: float = NOISE_FLOOR,
    alpha: float = ALPHA,
    pairs: Pairs = ([], []),
) -> list[Comparison]:
    """Each column's effect on `values` (one per row of `runs`, positive): the relative change
    from off to on, with its interval and verdict as a paired comparison gives them (p < alpha
    and the interval beyond the noise floor). Fitted on the logarithm, so that effects multiply
    as throughput changes do, with `pairs` (see the module's doc). Rows left unmeasured are NaN
    in `values` and left out. The pairs inform only the sum of the effects (every factor off
    against every one on), so they get a term for what that sum leaves (see together()): an
    effect of factors together then biases no factor's own."""
    fit = _fit(runs, values, pairs, extra=bool(len(pairs[0]) and len(pairs[1])))
    ran, logs = fit.x[: fit.measured], fit.y[: fit.measured]  # the means each side shows: the design's own runs
    verdicts = (fit.df, higher_is_better, noise_floor, alpha)
    return [
        _effect(ran[:, j + 1], logs, 2 * fit.coef[j + 1], 2 * math.sqrt(fit.cov[j + 1, j + 1]), *verdicts)
        for j in range(runs.shape[1])
    ]


@dataclass
class _Fit:
    x: np.ndarray
    y: np.ndarray
    measured: int  # the design's own runs among the rows, first
    coef: np.ndarray
    cov: np.ndarray
    df: int


def _fit(runs: np.ndarray, values: list[float], pairs: Pairs, extra: bool = False) -> _Fit:
    """The least-squares fit of the logarithms (see _model); `extra`: with a last column that
    lets the pairs' B differ from their A by more than the factors' effects add up to."""
    x, y, measured = _model(runs, values, pairs)
    if extra:
        step = np.zeros(len(x))
        step[measured:] = np.where(x[measured:, 1] > 0, 0.5, -0.5)  # the pairs' A at -1/2, B at +1/2
        x = np.column_stack([x, step])
    coef, _, rank, _ = np.linalg.lstsq(x, y, rcond=None)
    df = len(y) - x.shape[1]
    if rank < x.shape[1] or df < 1:
        raise UsageError(f"{len(y)} measured runs cannot separate {runs.shape[1]} factors")
    sigma2 = float(np.sum((y - x @ coef) ** 2)) / df
    return _Fit(x, y, measured, coef, sigma2 * np.linalg.inv(x.T @ x), df)


@dataclass
class Together:
    """The factors switched together (the pairs' B against their A) beside the sum of their own
    effects, each a relative change: what is left (`rest`, with its interval and p) is what the
    factors one by one do not explain, an interaction or effects too small to resolve one by one."""

    bundle: float
    own: float
    rest: float
    rest_ci: tuple[float, float]
    p: float

    def unexplained(self, alpha: float = ALPHA) -> bool:
        return self.p < alpha


def together(runs: np.ndarray, values: list[float], pairs: Pairs) -> Together | None:
    """The bundle against the sum of its factors' own effects (None without pairs, or where the
    fit has no room for the extra term)."""
    if not (len(pairs[0]) and len(pairs[1])):
        return None
    try:
        fit = _fit(runs, values, pairs, extra=True)
    except UsageError:
        return None
    k = runs.shape[1]
    own, rest = 2 * float(fit.coef[1 : k + 1].sum()), float(fit.coef[-1])
    se = math.sqrt(fit.cov[-1, -1])
    half = float(t_dist.ppf(0.5 + LEVEL / 2, fit.df)) * se
    p = float(2 * t_dist.sf(abs(rest) / se, fit.df)) if se > 0 else float(rest == 0)
    return Together(math.expm1(own + rest), math.expm1(own), math.expm1(rest), _relative(rest, half), p)


def unseen(
    runs: np.ndarray,
    values: list[float],
    pairs: Pairs = ([], []),
    power: float = 0.8,
    noise_floor: float = NOISE_FLOOR,
    alpha: float = ALPHA,
) -> float:
    """The smallest effect a factor must have for this design, at the spread these values show,
    to be called (its interval beyond the noise floor) `power` of the time: a smaller one may go
    unseen. The least precise factor's, as a relative change."""
    fit = _fit(runs, values, pairs, extra=bool(len(pairs[0]) and len(pairs[1])))
    se = max(2 * math.sqrt(fit.cov[j + 1, j + 1]) for j in range(runs.shape[1]))
    reach = float(t_dist.ppf(1 - alpha / 2, fit.df) + t_dist.ppf(power, fit.df)) * se
    return math.expm1(math.log1p(noise_floor) + reach)


def _relative(centre: float, half: float) -> tuple[float, float]:
    return math.expm1(centre - half), math.expm1(centre + half)


def _model(runs: np.ndarray, values: list[float], pairs: Pairs) -> tuple[np.ndarray, np.ndarray, int]:
    """The fit's rows (a constant, the factors, and with pairs the design's own term) and the
    logarithms of the values measured, the design's runs first; how many of those were measured."""
    off, on = (np.log(np.asarray(side, dtype=float)) for side in pairs)
    y = np.log(np.asarray(values, dtype=float))
    kept = np.isfinite(y)
    rows = [np.column_stack([np.ones(len(y)), runs])[kept]]
    for side, level in ((off, -1), (on, 1)):
        rows.append(np.column_stack([np.ones(len(side)), np.full((len(side), runs.shape[1]), level)]))
    x, y_all = np.vstack(rows), np.concatenate([y[kept], off, on])
    if len(off) + len(on):
        x = np.column_stack([x, np.arange(len(x)) < kept.sum()])
    finite = np.isfinite(y_all)
    finite[: kept.sum()] = True
    return x[finite].astype(float), y_all[finite], int(kept.sum())


def _effect(
    column: np.ndarray,
    y: np.ndarray,
    centre: float,
    se: float,
    df: int,
    higher_is_better: bool,
    noise_floor: float,
    alpha: float,
) -> Comparison:
    """One factor's comparison: the geometric means of the runs without and with it, the change
    the fit gives (log scale `centre`, standard error `se`) and its interval."""
    (off, off_ci), (on, on_ci) = _mean(y[column < 0]), _mean(y[column > 0])
    if se > 0:
        p = float(2 * t_dist.sf(abs(centre) / se, df))
        half = float(t_dist.ppf(0.5 + LEVEL / 2, df)) * se
        interval = _relative(centre, half)
    else:  # every run fitted exactly: known exactly
        p, interval = (0.0 if centre else 1.0), (math.expm1(centre), math.expm1(centre))
    verdict, detectable = verdict_of(p, interval, higher_is_better, noise_floor, alpha)
    sizes = (int((column < 0).sum()), int((column > 0).sum()))
    numbers = {"before_median": off, "before_ci": off_ci, "after_median": on, "after_ci": on_ci}
    return Comparison(
        **numbers,
        change=math.expm1(centre),
        change_ci=interval,
        p_value=p,
        verdict=verdict,
        detectable=detectable,
        sizes=sizes,
    )


def _mean(logs: np.ndarray) -> tuple[float, tuple[float, float]]:
    """The geometric mean of a group of runs and its 95% interval (all its runs' other factors
    vary, so this interval is wide: the effect's own interval is the one to read)."""
    centre = float(logs.mean())
    if len(logs) < 2:
        return math.exp(centre), (-math.inf, math.inf)
    half = float(t_dist.ppf(0.5 + LEVEL / 2, len(logs) - 1)) * float(logs.std(ddof=1)) / math.sqrt(len(logs))
    return math.exp(centre), (math.exp(centre - half), math.exp(centre + half))
