"""The two-level design behind `optimize --screen`: each factor's effect recovered from runs that
switch about half the factors at once, with an interval that covers it and a verdict only beyond
the noise."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nastune.errors import UsageError
from nastune.stats.factorial import MIN_DF, design, effects, together, unseen


@pytest.mark.parametrize("factors, rows", [(1, 8), (3, 8), (4, 16), (9, 16), (11, 16), (12, 32)])
def test_the_design_is_the_smallest_power_of_two_that_leaves_the_spread_its_columns(factors, rows):
    runs = design(factors)
    assert runs.shape == (rows, factors)
    assert rows - 1 - factors >= MIN_DF
    assert (runs.T @ runs == rows * np.eye(factors)).all()  # orthogonal: each estimate independent
    assert (runs.sum(axis=0) == 0).all()  # each factor on in half the runs


def test_each_factor_s_effect_is_recovered_with_an_interval_that_covers_it():
    runs = design(9)
    rng = np.random.default_rng(3)
    truth = np.array([0.4, 0, 0, -0.2, 0, 0, 0, 0, 0.05])
    found = effects(runs, list(100 * np.exp(runs @ (np.log1p(truth) / 2) + rng.normal(0, 0.02, len(runs)))))
    assert [c.verdict for c in found] == ["better", "~", "~", "worse", "~", "~", "~", "~", "~"]
    for c, t in zip(found, truth):
        assert c.change_ci[0] < t < c.change_ci[1]
        assert c.sizes == (8, 8)
    assert found[0].after_median > found[0].before_median


def test_lower_is_better_turns_the_verdict_and_a_missing_run_is_left_out():
    runs = design(2)
    values = list(10 * np.exp(runs[:, 0] * math.log(2) / 2 + np.linspace(-0.01, 0.01, len(runs))))
    values[3] = float("nan")
    found = effects(runs, values, higher_is_better=False)
    assert found[0].verdict == "worse" and found[0].sizes[0] + found[0].sizes[1] == 7
    assert found[1].verdict == "~"


def test_too_few_measured_runs_are_refused():
    runs = design(3)
    with pytest.raises(UsageError, match="cannot separate"):
        effects(runs, [1.0, 2.0, 3.0, 4.0] + [float("nan")] * 4)


@pytest.mark.parametrize(
    "factors, spare, rows", [(9, 0, 16), (9, 5, 12), (9, 3, 16), (2, 9, 8), (4, 5, 12), (11, 9, 16)]
)
def test_pairs_measured_apart_shrink_the_design_only_where_its_intervals_stay_about_as_narrow(factors, spare, rows):
    runs = design(factors, spare)
    assert runs.shape == (rows, factors)
    assert (runs.T @ runs == rows * np.eye(factors)).all()  # Plackett and Burman's 12 rows as orthogonal
    assert (runs.sum(axis=0) == 0).all()


def test_the_pairs_add_degrees_of_freedom_and_their_shift_is_no_effect():
    """Three pairs, all of them 30% above the design's runs (the time between), and the effects
    are still the design's: the shift goes to the pairs' own term, the intervals gain from them."""
    runs = design(9, 5)
    rng = np.random.default_rng(5)
    truth = np.array([0.3, 0, 0, 0, 0, 0, 0, 0, 0])
    values = list(100 * np.exp(runs @ (np.log1p(truth) / 2) + rng.normal(0, 0.02, len(runs))))
    shift, half = 1.3, math.sqrt(1 + truth[0])  # every rule off and on: the design's middle over and under half
    a = list(100 * shift / half * np.exp(rng.normal(0, 0.02, 3)))
    b = list(100 * shift * half * np.exp(rng.normal(0, 0.02, 3)))
    alone, fitted = effects(runs, values), effects(runs, values, pairs=(a, b))
    assert [c.verdict for c in fitted] == ["better"] + ["~"] * 8
    for c, t in zip(fitted, truth):
        assert c.change_ci[0] < t < c.change_ci[1]
        assert c.sizes == (6, 6)  # the means each side shows are the design's own runs
    widths = [(c.change_ci[1] - c.change_ci[0], d.change_ci[1] - d.change_ci[0]) for c, d in zip(fitted, alone)]
    assert all(with_pairs < without for with_pairs, without in widths)


def _screened(interaction: float, seed: int = 3) -> tuple[np.ndarray, list[float], tuple[list[float], list[float]]]:
    """9 factors, the first worth +5% on its own; the pairs (all off, all on) differ by that and
    by `interaction` more, which no factor alone does (MTU and TCP buffers together)."""
    runs = design(9, 5)
    rng = np.random.default_rng(seed)
    values = list(100 * np.exp(np.log(1.05) * (runs[:, 0] > 0) + rng.normal(0, 0.01, len(runs))))
    off = list(100 * np.exp(rng.normal(0, 0.01, 4)))
    on = list(100 * np.exp(np.log(1.05) + np.log1p(interaction) + rng.normal(0, 0.01, 4)))
    return runs, values, (off, on)


def test_a_gain_the_factors_one_by_one_do_not_explain_is_told_apart_and_biases_none():
    runs, values, pairs = _screened(interaction=0.08)
    found = together(runs, values, pairs)
    assert found is not None and found.unexplained()
    assert found.rest_ci[0] < 0.08 < found.rest_ci[1] and found.own < found.bundle
    # the pairs inform only the sum: the factors that do nothing stay near zero instead of sharing the 8%
    assert all(abs(c.change) < 0.02 for c in effects(runs, values, pairs=pairs)[1:])


def test_a_gain_the_factors_explain_is_not_called_unexplained():
    found = together(*_screened(interaction=0.0))
    assert found is not None and not found.unexplained()
    assert together(design(3), [100.0] * 8, ([], [])) is None  # without pairs: nothing to set beside


def test_the_smallest_effect_seen_grows_with_the_spread_and_shrinks_with_more_runs():
    runs = design(9, 5)
    rng = np.random.default_rng(8)
    noise = rng.normal(0, 1, 2 * len(runs))
    quiet = unseen(runs, list(100 * np.exp(0.01 * noise[: len(runs)])))
    loud = unseen(runs, list(100 * np.exp(0.05 * noise[: len(runs)])))
    twice = unseen(np.vstack([runs, runs]), list(100 * np.exp(0.05 * noise)))
    assert 0.03 < quiet < loud and twice < loud
