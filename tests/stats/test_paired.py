"""An interleaved run's pairs compared pair by pair: a disturbance longer than a pair cancels, a
pair that a disturbance split is trimmed, and an unchanged system gets no verdict."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nastune.stats.compare import compare, settled
from nastune.stats.paired import compare_pairs, trimmed_t


def disturbed(seed: int, change: float, n: int = 8) -> tuple[list[float], list[float]]:
    """n pairs at 1.5% spread; pairs 2 to 4 (both sides) under a load that takes 30% away."""
    rng = np.random.default_rng(seed)
    level = np.where((np.arange(n) >= 2) & (np.arange(n) < 5), 0.7, 1.0)
    a = 100 * level * np.exp(rng.normal(0, 0.015, n))
    b = 100 * (1 + change) * level * np.exp(rng.normal(0, 0.015, n))
    return list(a), list(b)


@pytest.mark.parametrize("seed", range(10))
def test_a_disturbance_longer_than_a_pair_cancels_in_the_pairs_not_in_the_ranks(seed):
    a, b = disturbed(seed, -0.10)
    assert compare_pairs(a, b).verdict == "worse"
    assert compare(a, b).verdict == "~"  # the unpaired test sees the load as spread on both sides


@pytest.mark.parametrize("seed", range(20))
def test_an_unchanged_system_gets_no_verdict(seed):
    a, b = disturbed(seed, 0.0)
    result = compare_pairs(a, b)
    assert result.verdict == "~"
    assert abs(result.change) < 0.03


def test_a_pair_a_disturbance_split_is_trimmed():
    rng = np.random.default_rng(3)
    a = list(100 * np.exp(rng.normal(0, 0.01, 7)))
    b = [v * 0.9 * math.exp(e) for v, e in zip(a, rng.normal(0, 0.01, 7))]
    a[3] *= 0.6  # the load began between this pair's B and its A: one side hit
    result = compare_pairs(a, b)
    assert result.verdict == "worse"
    assert -0.13 < result.change < -0.07
    d = np.log(b) - np.log(a)
    centre, se, df = trimmed_t(d)
    assert df == 4
    assert math.isclose(centre, float(np.mean(np.sort(d)[1:-1])))
    plain = float(np.std(d, ddof=1)) / math.sqrt(7)
    assert se < plain  # the split pair would have widened a plain paired t's interval


def test_up_to_five_pairs_it_is_the_plain_paired_t():
    d = np.log([1.1, 1.05, 1.12, 1.08, 1.3])
    centre, se, df = trimmed_t(d)
    assert df == 4
    assert math.isclose(centre, d.mean())
    assert math.isclose(se, d.std(ddof=1) / math.sqrt(5))
    assert trimmed_t(np.append(d, 1.0))[2] == 3  # from six pairs, one trimmed from each end


def test_direction_follows_the_metric_and_a_settled_change_stops_the_pairs():
    a = [10.0, 10.2, 9.9, 10.1, 10.0]
    b = [v * 1.2 for v in (10.1, 10.0, 10.0, 10.2, 9.9)]
    result = compare_pairs(a, b, higher_is_better=False)
    assert result.verdict == "worse"
    assert settled(result)
    assert result.sizes == (5, 5)
    assert result.min_p == 0.0


def test_pairs_that_all_moved_alike_are_known_exactly():
    same = compare_pairs([100.0, 90.0, 110.0], [100.0, 90.0, 110.0])
    assert same.verdict == "~"
    assert same.p_value == 1.0
    assert same.change_ci == (0.0, 0.0)
    assert settled(same)
    faster = compare_pairs([100.0, 90.0, 110.0], [110.0, 99.0, 121.0])
    assert faster.verdict == "better"
    assert faster.p_value == 0.0


def test_one_pair_proves_nothing_and_unmatched_values_are_refused():
    one = compare_pairs([100.0], [150.0])
    assert one.verdict == "~"
    assert one.verdict_text() == "~ (too few repeats to tell)"
    with pytest.raises(ValueError, match="as many A values as B values"):
        compare_pairs([100.0, 101.0], [100.0])
    with pytest.raises(ValueError, match="finite and positive"):
        compare_pairs([100.0, 0.0], [100.0, 101.0])
