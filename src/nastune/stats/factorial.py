"""Each factor's own effect from one two-level design (Plackett and Burman, Biometrika 1946; the
regular fractions of Box, Hunter and Hunter, "Statistics for Experimenters", 2005, ch. 6): every
run switches about half the factors on, and each factor's effect is the difference between the
runs with it and those without, so all runs serve every estimate. With k factors, one at a time
against none needs k comparisons of a few pairs each; this needs one run per row of a design of
at least k + 1 + MIN_DF rows, and each estimate compares half the runs with the other half.

The design's columns are those of a Sylvester-Hadamard matrix (scipy.linalg.hadamard), which
are orthogonal: each effect is estimated independently of the others' main effects. It is of
resolution III: an interaction of two factors (TCP buffers with the MTU) is confounded with a
third factor's effect, which the notes of whoever uses it say. The spread that the intervals use
comes from the columns no factor takes (MIN_DF of them at least)."""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import hadamard
from scipy.stats import t as t_dist

from nastune.errors import UsageError
from nastune.stats.compare import ALPHA, NOISE_FLOOR, Comparison, verdict_of
from nastune.stats.paired import LEVEL

MIN_DF = 4  # degrees of freedom left for the spread: t(4) widens an interval 2.8x, t(2) 4.3x


def design(factors: int) -> np.ndarray:
    """Rows: runs; columns: factors, +1 on and -1 off. The fewest rows, a power of two, that
    leave MIN_DF columns for the spread; the all-on row comes first."""
    if factors < 1:
        raise UsageError("a design needs one factor at least")
    rows = 2 ** math.ceil(math.log2(factors + 1 + MIN_DF))
    return hadamard(rows)[:, 1 : factors + 1]


def effects(
    runs: np.ndarray,
    values: list[float],
    higher_is_better: bool = True,
    noise_floor: float = NOISE_FLOOR,
    alpha: float = ALPHA,
) -> list[Comparison]:
    """Each column's effect on `values` (one per row of `runs`, positive): the relative change
    from off to on, with its interval and verdict as a paired comparison gives them (p < alpha
    and the interval beyond the noise floor). Fitted on the logarithm, so that effects multiply
    as throughput changes do. Rows left unmeasured are NaN in `values` and left out."""
    y = np.log(np.asarray(values, dtype=float))
    measured = np.isfinite(y)
    x = np.column_stack([np.ones(len(y)), runs])[measured]
    y = y[measured]
    coef, _, rank, _ = np.linalg.lstsq(x, y, rcond=None)
    df = len(y) - x.shape[1]
    if rank < x.shape[1] or df < 1:
        raise UsageError(f"{len(y)} measured runs cannot separate {runs.shape[1]} factors")
    sigma2 = float(np.sum((y - x @ coef) ** 2)) / df
    cov = sigma2 * np.linalg.inv(x.T @ x)
    fit = (df, higher_is_better, noise_floor, alpha)
    return [
        _effect(x[:, j + 1], y, 2 * coef[j + 1], 2 * math.sqrt(cov[j + 1, j + 1]), *fit) for j in range(runs.shape[1])
    ]


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
        interval = (math.expm1(centre - half), math.expm1(centre + half))
    else:  # every run fitted exactly: known exactly
        p, interval = (0.0 if centre else 1.0), (math.expm1(centre), math.expm1(centre))
    verdict, detectable = verdict_of(p, interval, higher_is_better, noise_floor, alpha)
    sizes = (int((column < 0).sum()), int((column > 0).sum()))
    return Comparison(off, off_ci, on, on_ci, math.expm1(centre), interval, p, verdict, 0.0, detectable, sizes)


def _mean(logs: np.ndarray) -> tuple[float, tuple[float, float]]:
    """The geometric mean of a group of runs and its 95% interval (all its runs' other factors
    vary, so this interval is wide: the effect's own interval is the one to read)."""
    centre = float(logs.mean())
    if len(logs) < 2:
        return math.exp(centre), (-math.inf, math.inf)
    half = float(t_dist.ppf(0.5 + LEVEL / 2, len(logs) - 1)) * float(logs.std(ddof=1)) / math.sqrt(len(logs))
    return math.exp(centre), (math.exp(centre - half), math.exp(centre + half))
