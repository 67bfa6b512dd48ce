"""The verdict must neither invent changes (A/A), nor miss a real one, nor trust tiny samples."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nastune.bench.results import MetricResult, Provenance, ResultSet, WorkloadResult
from nastune.stats.compare import compare
from nastune.stats.runs import Incomparable, compare_runs
from nastune.wire import Verdict
from tests.conftest import need


def draws(seed: int, mean: float, n: int = 5, sd: float = 0.015) -> list[float]:
    return list(np.random.default_rng(seed).normal(mean, mean * sd, n))


@pytest.mark.parametrize("seed", range(20))
def test_a_a_comparison_says_no_change(seed):
    assert compare(draws(seed, 100), draws(seed + 1000, 100)).verdict == "~"


@pytest.mark.parametrize("seed", range(10))
def test_a_ten_percent_shift_is_detected(seed):
    result = compare(draws(seed, 100), draws(seed + 1000, 110))
    assert result.verdict == "better"
    assert result.change_ci[0] > 0.03
    assert 0.05 < result.change < 0.15


def test_direction_follows_the_metric():
    assert compare(draws(1, 100), draws(2, 110), higher_is_better=False).verdict == "worse"
    assert compare(draws(1, 100), draws(2, 90), higher_is_better=False).verdict == "better"


def test_small_samples_give_wide_intervals_not_verdicts():
    result = compare([100.0, 112.0], [109.0, 121.0])
    assert result.verdict == "~"
    assert result.change_ci[1] - result.change_ci[0] > 0.15
    assert compare([100.0], [150.0]).verdict == "~"


def test_changes_inside_the_noise_floor_are_not_counted():
    result = compare(draws(3, 100, 20, 0.002), draws(4, 101.5, 20, 0.002))
    assert result.p_value < 0.05
    assert result.verdict == "~"  # significant, but under 3%


def _run(label: str, values: list[float], kernel="6.1.0", params=None, rmem="4096 16384 65536") -> ResultSet:
    return ResultSet(
        created="2026-11-21T00:00:00+00:00",
        label=label,
        provenance=Provenance(
            nastune="0",
            kernel=kernel,
            command=[],
            tools={"fio": "fio-3.33"},
            settings={"sysctl": {"net.ipv4.tcp_rmem": rmem}},
        ),
        results=[
            WorkloadResult(
                workload="seq-write",
                target={"url": "smb://nas/data"},
                params=params or {"size": 1 << 30},
                started="",
                seconds=1,
                metrics={"MB/s": MetricResult(unit="MB/s", values=values)},
            )
        ],
    )


def test_runs_of_different_parameters_are_refused_unless_forced():
    a, b = _run("a", draws(1, 100)), _run("b", draws(2, 100), params={"size": 1 << 20})
    with pytest.raises(Incomparable, match="workload parameters differ \\(size\\)"):
        compare_runs(a, b)
    rows, notes = compare_runs(a, b, force=True)
    assert rows
    assert any("compared anyway" in n for n in notes)


def test_kernel_and_setting_changes_are_noted():
    a = _run("a", draws(1, 100))
    b = _run("b", draws(2, 70), kernel="6.12.0", rmem="4096 131072 6291456")
    rows, notes = compare_runs(a, b)
    assert rows[0].verdict == "worse"
    assert any(n.startswith("kernel changed: 6.1.0 -> 6.12.0") for n in notes)
    assert any("net.ipv4.tcp_rmem" in n for n in notes)


def test_baseline_save_and_check(tmp_path):
    from tests.conftest import run_cli

    env = {"NASTUNE_BASELINES": str(tmp_path / "baselines")}
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    _run("good", draws(1, 100)).save(good)
    _run("bad", draws(2, 70)).save(bad)
    run_cli("baseline", "save", "tuned", str(good), env=env)
    assert run_cli("baseline", "check", "tuned", str(good), env=env).returncode == 0
    worse = run_cli("baseline", "check", "tuned", str(bad), env=env, check=False)
    assert worse.returncode == 1
    assert "worse" in worse.stdout
    summary = run_cli("baseline", "check", "tuned", str(bad), "--json", env=env, check=False)  # schema-checked
    (compared,) = json.loads(summary.stdout)["comparisons"]
    assert summary.returncode == 1
    assert compared["before"] == "baseline tuned"
    assert {r["verdict"] for r in compared["rows"]} == {"worse"}
    missing = run_cli("baseline", "check", "nosuch", str(good), env=env, check=False)
    assert missing.returncode == 2
    assert "no baseline 'nosuch'" in missing.stderr


def test_too_few_repeats_are_explained():
    rows, notes = compare_runs(_run("a", draws(1, 100, 3)), _run("b", draws(2, 200, 3)))
    assert rows[0].verdict == "~"
    assert any("3 against 3 repeats: a rank test cannot reach p < 0.05" in n for n in notes)
    assert rows[0].verdict_text() == "~ (too few repeats to tell)"


@pytest.mark.parametrize(
    "before,after",
    [
        ([], [100.0]),
        ([100.0, float("nan")], [100.0]),
        ([100.0], [float("inf")]),
        ([0.0, 0.0, 0.0], [1.0, 2.0, 3.0]),
        ([100.0, 0.0, 99.0], [100.0]),
    ],
)
def test_values_a_comparison_cannot_divide_by_are_refused(before, after):
    with pytest.raises(ValueError, match=r"no before values|must be finite and positive"):
        compare(before, after)


@pytest.mark.parametrize(
    "values,message",
    [
        ([], "no values"),
        ([100.0, "NaN"], "not JSON"),
        ([100.0, 0.0], "repeat 2 is 0.0"),
        ([-1.0], "repeat 1 is -1.0"),
        ([100.0] * 60_000, "at most 10000"),
    ],
)
def test_result_files_with_unusable_values_name_the_file_workload_and_metric(tmp_path, values, message):
    import json

    from nastune.bench.results import load

    data = {
        "schema": "nastune.results/1",
        "created": "",
        "label": "x",
        "provenance": {"nastune": "0", "kernel": "6.1", "command": [], "tools": {}},
        "results": [
            {
                "workload": "seq-write",
                "target": {"url": "smb://nas/data"},
                "params": {},
                "started": "",
                "seconds": 1,
                "metrics": {"MB/s": {"unit": "MB/s", "values": values}},
            }
        ],
    }
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data).replace('"NaN"', "NaN"))
    with pytest.raises(ValueError) as refused:
        load(path)
    text = str(refused.value)
    assert str(path) in text
    assert message in text
    if message != "not JSON":
        assert "workload seq-write, metric MB/s" in text


def test_compare_json_is_strict_json(tmp_path):
    import json

    from tests.conftest import run_cli

    paths = []
    for name, scale in (("a", 1.0), ("b", 1.1)):
        rs = ResultSet(
            created="",
            label=name,
            provenance=Provenance(nastune="0", kernel="6.1", command=[], tools={}),
            results=[
                WorkloadResult(
                    workload="w",
                    target={"url": "smb://x/y"},
                    params={},
                    started="",
                    seconds=1,
                    metrics={"MB/s": MetricResult(unit="MB/s", values=draws(int(scale * 10), 100 * scale))},
                )
            ],
        )
        rs.save(tmp_path / f"{name}.json")
        paths.append(str(tmp_path / f"{name}.json"))
    out = run_cli("compare", *paths, "--json").stdout
    json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in compare --json"))
    single = run_cli("compare", paths[0], check=False)
    assert single.returncode == 2
    assert "give at least two result files" in single.stderr


def test_ties_get_an_exact_p_not_the_normal_approximation():
    # scipy's asymptotic test says p = 0.047 here; the exact permutation p (and benchstat's) is 0.100
    result = compare([100.0] * 3, [110.0] * 3)
    assert result.p_value == pytest.approx(0.1)
    assert result.verdict == "~"


@pytest.mark.parametrize("n_b, exact", [(5, 2 / 21), (6, 2 / 28)])
def test_tied_samples_of_unequal_size_get_twice_the_smaller_tail(n_b, exact):
    """2 vs 5 tied: the exact p is 0.095, as benchstat and scipy give it (the rank-sum distribution
    is not symmetric here; counting |S - centre| halved it to 0.048), so no "better"."""
    from scipy.stats import mannwhitneyu

    result = compare([100.0] * 2, [110.0] * n_b)
    assert result.p_value == pytest.approx(exact)
    assert result.verdict == "~"
    distinct = compare([100.0, 100.5], [110.0 + i for i in range(n_b)])
    assert distinct.p_value == pytest.approx(mannwhitneyu([100.0, 100.5], [110.0 + i for i in range(n_b)]).pvalue)


def test_the_repeats_note_depends_on_both_sample_sizes():
    rows, notes = compare_runs(_run("a", draws(1, 100, 3)), _run("b", draws(2, 200, 5)))
    assert rows[0].min_p == pytest.approx(2 / 56)  # 3 + 5 repeats can reach p < 0.05
    assert rows[0].verdict == "better"
    assert not any("cannot reach" in n for n in notes)


def test_a_tilde_says_what_it_could_have_seen():
    result = compare(draws(1, 100, 5, sd=0.02), draws(2, 100, 5, sd=0.02))
    assert result.verdict == "~"
    assert result.detectable is not None
    assert 0.03 < result.detectable < 0.2
    assert result.verdict_text() == f"~ (no change larger than about {result.detectable:.0%})"
    wider = compare(draws(1, 100, 5, sd=0.08), draws(2, 100, 5, sd=0.08))
    assert need(wider.detectable) > need(result.detectable)  # noisier runs can show less


def test_unit_and_direction_mismatches_are_refused_and_other_provenance_noted():
    a, b = _run("a", draws(1, 100)), _run("b", draws(2, 110))
    b.provenance.host, b.provenance.lab_scenario = "other-host", "modern"
    _, notes = compare_runs(a, b)
    assert any("different hosts" in n for n in notes)
    assert any("lab scenario changed" in n for n in notes)
    for change in ({"unit": "GB/s"}, {"higher_is_better": False}):
        c = _run("c", draws(2, 110))
        for r in c.results:
            for name, m in r.metrics.items():
                r.metrics[name] = m.model_copy(update=change)
        with pytest.raises(Incomparable, match="not comparable"):
            compare_runs(a, c)


def test_too_few_repeats_get_no_interval_and_say_so():
    """3 + 3 repeats: no interval can cover 95% (the ranks allow 90% at most), so none is given."""
    three = compare(draws(1, 100, 3), draws(2, 100, 3))
    assert three.interval_text() == "too few repeats for an interval"
    row = Verdict.of("seq-read", "smb://nas/data", "MB/s", "MB/s", True, None, three)
    assert row.model_dump()["change_ci"] == [None, None]  # strict JSON: null, never Infinity
    four = compare(draws(1, 100, 4), draws(2, 100, 4))
    assert "too few" not in four.interval_text()


def test_the_tilde_wording_is_never_narrower_than_the_interval():
    said = [compare(draws(seed, 100, 5, sd=0.04), draws(seed + 100, 100, 5, sd=0.04)) for seed in range(20)]
    said = [c for c in said if c.verdict == "~" and c.detectable is not None]
    assert len(said) >= 10
    assert all(need(c.detectable) >= max(abs(c.change_ci[0]), abs(c.change_ci[1])) for c in said)


def test_a_link_speed_change_is_noted_and_a_protocol_change_refused():
    a, b = _run("a", draws(1, 100)), _run("b", draws(2, 110))
    for rs, limit in ((a, 117.7), (b, 1177.0)):
        for r in rs.results:
            for m in r.metrics.values():
                m.limit = limit
    _, notes = compare_runs(a, b)
    assert any("at the same MTU: the link's speed changed" in n for n in notes)
    for r in b.results:
        r.target.mtu = 9000
    _, notes = compare_runs(a, b)
    assert any("with the MTU (None -> 9000)" in n for n in notes)
    for r in a.results:
        r.target.kind = "smb"
    for r in b.results:
        r.target.kind = "nfs"
    with pytest.raises(Incomparable, match="not the same protocol"):
        compare_runs(a, b)
