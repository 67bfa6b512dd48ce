"""Comparing two runs the way 003 did, with the arithmetic made explicit: medians with 95%
bootstrap intervals, the relative change with its interval, a Mann-Whitney U test, and a
verdict that counts a change only when it is significant (p < 0.05) and its whole interval
lies beyond the noise floor (3%: 003's runs on one machine differed by 3% on average)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import mannwhitneyu

NOISE_FLOOR = 0.03
ALPHA = 0.05
RESAMPLES = 10000


@dataclass
class Comparison:
    before_median: float
    before_ci: tuple[float, float]
    after_median: float
    after_ci: tuple[float, float]
    change: float  # relative, after/before - 1
    change_ci: tuple[float, float]
    p_value: float
    verdict: str  # better, worse, ~

    def to_json(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def _rng(values_a, values_b) -> np.random.Generator:
    """Seeded by the data, so the same two runs always give the same intervals."""
    seed = abs(hash(tuple(np.round(np.concatenate([values_a, values_b]), 9)))) % (2**32)
    return np.random.default_rng(seed)


def median_ci(values: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
    if len(values) < 2:
        return float(values[0]), float(values[0])
    samples = np.median(rng.choice(values, size=(RESAMPLES, len(values))), axis=1)
    return float(np.percentile(samples, 2.5)), float(np.percentile(samples, 97.5))


def compare(
    before: list[float], after: list[float], higher_is_better: bool = True, noise_floor: float = NOISE_FLOOR
) -> Comparison:
    a, b = np.asarray(before, float), np.asarray(after, float)
    for side, values in (("before", a), ("after", b)):
        if values.size == 0:
            raise ValueError(f"no {side} values to compare")
        if not np.all(np.isfinite(values)) or np.any(values <= 0):
            raise ValueError(f"the {side} values must be finite and positive")
    rng = _rng(a, b)
    ma, mb = float(np.median(a)), float(np.median(b))
    if len(a) > 1 and len(b) > 1:
        ratios = (
            np.median(rng.choice(b, size=(RESAMPLES, len(b))), axis=1)
            / np.median(rng.choice(a, size=(RESAMPLES, len(a))), axis=1)
        ) - 1
        change_ci = (float(np.percentile(ratios, 2.5)), float(np.percentile(ratios, 97.5)))
        p = (
            float(mannwhitneyu(a, b, alternative="two-sided").pvalue)
            if not (np.all(a == a[0]) and np.array_equal(a, b))
            else 1.0
        )
    else:
        change_ci, p = (-np.inf, np.inf), 1.0  # one value per side proves nothing
    change = mb / ma - 1 if ma else 0.0
    verdict = "~"
    if p < ALPHA and (change_ci[0] > noise_floor or change_ci[1] < -noise_floor):
        up = change_ci[0] > noise_floor
        verdict = "better" if up == higher_is_better else "worse"
    return Comparison(ma, median_ci(a, rng), mb, median_ci(b, rng), change, change_ci, p, verdict)
