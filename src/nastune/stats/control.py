"""The A/A control of an interleaved run: A's last repeat against what its earlier repeats
predict. A control that left A's range refuses a verdict only where A's drift could explain the
change: a change whose whole interval lies beyond the drift is judged all the same."""

from __future__ import annotations

import math
import statistics

from scipy.stats import t as t_dist

from nastune.wire import Verdict


def outside(values: list[float], extra: float, noise_floor: float) -> bool:
    """Whether one more repeat lies outside the 95% prediction interval of `values` (Student's t,
    mean +- t * s * sqrt(1 + 1/n)) widened by the noise floor on both sides."""
    n = len(values)
    centre = statistics.fmean(values)
    half = t_dist.ppf(0.975, n - 1) * statistics.stdev(values) * math.sqrt(1 + 1 / n) if n > 1 else 0.0
    return not (centre - half) * (1 - noise_floor) <= extra <= (centre + half) * (1 + noise_floor)


def drift(values: list[float], extra: float) -> float:
    """How far one more repeat lies from the mean of `values`, relative to it."""
    centre = statistics.fmean(values)
    return abs(extra - centre) / abs(centre) if centre else math.inf


def explained(drifted: dict[str, float], rows: list[Verdict]) -> list[str]:
    """The metrics (keyed "workload @ target metric") whose A drifted by enough to explain their
    change: every drifted one but those whose change interval lies wholly beyond the drift."""
    beyond = set()
    for r in rows:
        key, (low, high) = r.name, r.change_ci
        known = key in drifted and math.isfinite(low) and math.isfinite(high)
        if known and (low > drifted[key] or high < -drifted[key]):
            beyond.add(key)
    return [key for key in drifted if key not in beyond]
