"""A figure the README states comes from a bench script's recorded output: the sentence is
checked against the record, so a rerun that moves the figure moves the README or fails here."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

from tests.conftest import documentation

TOP = Path(__file__).parents[2]
README = documentation()


def test_the_agent_size_in_the_readme_is_the_recorded_one():
    record = json.loads((TOP / "bench" / "results" / "agent-size.json").read_text())
    stated = re.search(r"core (\d+) MB, controller (\d+) MB, (\d+)%", " ".join(README.split()))
    assert stated, "the README states the NAS-side install size"
    core, controller, share = map(int, stated.groups())
    assert core == round(record["core"]["bytes"] / 1e6)
    assert controller == round(record["controller"]["bytes"] / 1e6)
    assert share == round(record["ratio"] * 100)
    assert record["met"] and record["core"]["inspect_works"]


def test_the_main_job_figures_in_the_readme_are_the_recorded_ones():
    record = json.loads((TOP / "bench" / "results" / "main-speed.json").read_text())
    runs = {r["flow"]: r for r in record["runs"]}
    text = " ".join(README.split())
    stated = re.search(r"interleaved (\d+) s after set-up, before-after (\d+) s \(ratio ([\d.]+)", text)
    assert stated, "the README states both flows' times"
    new, old, ratio = stated.groups()
    assert int(new) == round(runs["interleaved"]["after_setup_s"])
    assert int(old) == round(runs["before-after"]["after_setup_s"])
    assert float(ratio) == round(record["result"]["time_ratio"], 2)
    assert ("the goal of a third is not met" in text) == (not record["result"]["met"])
    verdicts = re.search(r"(\d+) better vs (\d+), (\d+) worse, (\d+) refused", text)
    assert verdicts
    assert [int(v) for v in verdicts.groups()] == [
        runs["interleaved"]["better"],
        runs["before-after"]["better"],
        runs["interleaved"]["worse"],
        len(runs["interleaved"]["refused"]),
    ]
    once = {r["target"].split(":")[0]: r for r in runs["interleaved"]["before_after"] if r["workload"] == "aged-read"}
    befores, afters = (
        sorted(r["before_median"] for r in once.values()),
        sorted(r["after_median"] for r in once.values()),
    )
    aged = f"at {befores[0]:.1f}-{befores[-1]:.1f} MB/s before xfs_fsr and {afters[0]:.1f}-{afters[-1]:.1f} MB/s after"
    assert aged in text
    mixed = {(r["workload"], r["target"].split(":")[0]): r["change"] for r in runs["interleaved"]["interleaved"]}
    gains = (("NFS writes", "seq-write", "nfs"), ("SMB writes", "seq-write", "smb"), ("NFS reads", "seq-read", "nfs"))
    for said, workload, kind in gains:
        assert f"{said} {mixed[(workload, kind)]:+.0%}" in text, said


def test_the_start_up_figures_in_the_readme_are_the_recorded_ones():
    record = {r["command"]: r for r in json.loads((TOP / "bench" / "results" / "startup.json").read_text())["rows"]}
    text = " ".join(README.split())
    for command in ("nastune --help", "nastune explain"):
        stated = re.search(rf"`{command}` (\d+) ms \(([\d.]+)x", text)
        assert stated, command
        assert int(stated.group(1)) == round(record[command]["median_s"] * 1000)
        assert float(stated.group(2)) == record[command]["ratio"]


def _printed(grid: str, pattern: str) -> re.Match:
    record = json.loads((TOP / "bench" / "results" / f"autotune-replay-{grid}.json").read_text())
    found = next((m for line in record["printed"] if (m := re.search(pattern, line))), None)
    assert found, (grid, pattern)
    return found


def test_the_autotune_table_and_its_sampler_figures_are_the_recorded_replays():
    text = " ".join(README.split())
    row = re.search(r"\| grid's best; rule plan \| ([\d.]+)x; ([\d.]+)x \(([\d.]+)%\) \| ([\d.]+)x; ([\d.]+)x", text)
    assert row
    for grid, (best, rule) in (("soho", row.groups()[0:2]), ("soho-wide", row.groups()[3:5])):
        got = _printed(grid, r"grid's best ([\d.]+)x; rule-based plan ([\d.]+)x")
        assert (best, rule) == got.groups()
    trials = re.search(
        r"\| autotune's trials on average, against random search's \(20 trials\) \| ([\d.]+)% against ([\d.]+)%"
        r"[^|]*\| ([\d.]+)% against ([\d.]+)%",
        text,
    )
    assert trials
    for grid, stated in (("soho", trials.groups()[:2]), ("soho-wide", trials.groups()[2:])):
        got = _printed(
            grid,
            r"its trials better than random search's at 20 trials \(paired Wilcoxon, mean ([\d.]+)% against ([\d.]+)%",
        )
        assert stated == got.groups()
    for grid, pair in (("soho", ("92.8", "93.2")), ("soho-wide", ("95.7", "94.4"))):
        independent = _printed(grid, r"budget 20  TPE, independent .* the trials: ([\d.]+)% of the best")
        mine = _printed(grid, r"budget 20  autotune \(TPE, multivariate\) .* the trials: ([\d.]+)% of the best")
        assert (independent[1], mine[1]) == pair and f"{pair[0]}% against {pair[1]}%" in text


def test_the_interval_coverage_figures_are_the_recorded_ones():
    record = json.loads((TOP / "bench" / "results" / "coverage.json").read_text())
    assert record["met"]
    span = lambda cells, key: "-".join(
        f"{100 * v:.1f}"
        for v in (
            min(c[key] / c["trials" if key == "plain95" else "given"] for c in cells),
            max(c[key] / c["trials" if key == "plain95" else "given"] for c in cells),
        )
    )
    three = [c for c in record["cells"] if c["n"] == [3, 3]]
    small = [c for c in record["cells"] if c["n"] in ([3, 5], [4, 4])]
    assert all(c["given"] == 0 for c in three)
    text = " ".join(README.split())
    assert f"in {span(three, 'plain95')}% of A/A runs" in text
    assert (
        f"in {span(small, 'plain95')}%, and the 99% percentiles nastune uses there in {span(small, 'covered')}%" in text
    )


def test_the_paired_figures_are_the_recorded_ones():
    record = json.loads((TOP / "bench" / "results" / "paired.json").read_text())
    cells = {(c["condition"], c["change"]): c for c in record["cells"]}
    share = lambda cell, method, key: f"{100 * cell[method][key] / cell['trials']:.1f}%"
    five, fifteen = cells[("disturbed, jitter 5%", -0.1)], cells[("disturbed, jitter 15%", -0.1)]
    calm, noisy = cells[("calm, CV 2%", -0.1)], cells[("calm, CV 5%", -0.1)]
    worst = max((c for c in record["cells"] if c["change"] == 0), key=lambda c: c["paired"]["false"])
    rank_worst = max((c for c in record["cells"] if c["change"] == 0), key=lambda c: c["rank"]["false"])
    text = " ".join(README.split())
    said = (
        f"{five['trials']} per cell, recorded in "
        f"`bench/results/paired.json`; goal {'met' if record['met'] else 'NOT met'}): under a disturbance like "
        f"noise.py's, a 10% change found in {share(five, 'paired', 'found')} and {share(fifteen, 'paired', 'found')} "
        f"of runs against the rank test's {share(five, 'rank', 'found')} and {share(fifteen, 'rank', 'found')}, in "
        f"{five['paired']['mean_pairs']} and {fifteen['paired']['mean_pairs']} pairs; calm at CV 2%, in "
        f"{calm['paired']['mean_pairs']} pairs against {calm['rank']['mean_pairs']}; A/A false verdicts at most "
        f"{share(worst, 'paired', 'false')} (rank {share(rank_worst, 'rank', 'false')}"
    )
    assert said in text
    assert worst["condition"] == rank_worst["condition"] == "calm, CV 8%"  # "both at CV 8%"
    assert f"({share(noisy, 'rank', 'found')} against {share(noisy, 'paired', 'found')})" in text


def test_the_autotune_trial_times_are_the_recorded_ones():
    now, before = (
        json.loads((TOP / "bench" / "results" / f"{name}.json").read_text())
        for name in ("autotune-speed", "autotune-speed-before")
    )
    text = " ".join(README.split())
    assert (
        f"measured a trial at {now['trial_s']:.1f} s (median), {now['measuring_s']:.1f} s of it measuring, where its data "
        f"needs {now['data_s']:.1f} s at the link's goodput; {before['trial_s']:.1f} s ({before['measuring_s']:.1f} s "
        "measuring) before" in text
    )
    assert now["trial_s"] == statistics.median(t["seconds"] for t in now["trials"])


def test_the_noise_figures_are_the_recorded_ones():
    record = json.loads((TOP / "bench" / "results" / "noise.json").read_text())
    r = record["result"]
    assert r["trials"] >= 20 and len(record["trials"]) == r["trials"]
    assert {t["kind"] for t in record["trials"]} == {"cpu", "io", "network"}
    text = " ".join(README.split())
    stated = re.search(
        r"`bench/noise.py` \(modern lab, (\d+) trials.*?before/after called it changed in (\d+); interleaved in "
        r"(\d+) \(goal <= 5%\), with a metric refused by the A/A control in (\d+); a real 10% change found in "
        r"(\d+) \(goal >= 95%\), refused in (\d+)",
        text,
    )
    assert stated, "the README states the noise bench's recorded figures"
    keys = ("trials", "before_after_changed", "interleaved_changed", "interleaved_refused", "ten_percent_found")
    assert [int(v) for v in stated.groups()] == [r[k] for k in keys] + [r["ten_percent_refused"]]
    assert ("noise goal met" in text) == r["met"] and ("noise goal NOT met" in text) == (not r["met"])
    assert f"median {r['median_seconds_to_verdict']:.0f} s to the verdict" in text
    measured = re.search(r"change measured (\S+) \(median\)", " ".join(r["printed"]))
    assert measured and f"which that link bounds: {measured[1]} (median)" in text  # as printed (the record rounds)
    assert abs(float(measured[1].rstrip("%")) / 100 - r["median_change_measured"]) < 0.001


def test_the_attribution_figures_are_the_recorded_ones():
    record = json.loads((TOP / "bench" / "results" / "attribution.json").read_text())
    r = record["result"]
    text = " ".join(README.split())
    assert len(record["runs"]) == sum(h["runs"] for h in r["hits"].values())
    for scenario, hit in r["hits"].items():
        assert f"{scenario} {hit['hit']}/{hit['runs']} ({hit['injected']}" in text, scenario
    cost = r["overhead"]
    on, off = (statistics.median(cost[k]) for k in ("profiled", "unprofiled"))
    stated = f"{on:.1f} MB/s profiled, {off:.1f} unprofiled, {len(cost['profiled'])} repeats each, alternated"
    assert f"{stated} ({cost['cost']:+.1%}, goal under 2%)" in text
    assert ("attribution goal met" in text) == r["met"] and ("attribution goal NOT met" in text) == (not r["met"])


def test_the_peers_table_and_verdicts_are_the_recorded_ones():
    record = json.loads((TOP / "bench" / "results" / "peers.json").read_text())
    text = " ".join(README.split())
    scenarios = list(record["rows"])
    for label in ("TuneD throughput-performance", "TuneD network-throughput", "nastune plan", "nastune autotune"):
        means = []
        for name in scenarios:
            rows = record["rows"][name]
            base = {k: statistics.median(v) for k, v in rows["defaults"].items()}
            ratios = [statistics.median(v) / base[k] for k, v in rows[label].items()]
            means.append(f"{statistics.geometric_mean(ratios):.2f}x")
        row = re.search(rf"\| {label} \| ([\d.]+x)[^|]*\| ([\d.]+x)[^|]*\|", text)
        assert row and list(row.groups()) == means, (label, means)
    soho_rows = record["rows"]["soho"]
    said = {"nfs:seq-write": "NFS writes", "smb:seq-write": "SMB writes", "nfs:seq-read": "NFS reads"}
    for key, words in {**said, "smb:seq-read": "SMB reads"}.items():
        gain = statistics.median(soho_rows["nastune plan"][key]) / statistics.median(soho_rows["defaults"][key])
        assert f"{words} {gain:.2f}x" in text, key
    for name in scenarios:
        verdict = record["result"]["verdicts"][name]
        won, again = verdict["plan_over_tuned"], verdict["autotune_over_plan"]
        assert f"{won['ratio']:.2f}x TuneD's best ({verdict['tuned_best']})" in text or (
            f"{name} {won['ratio']:.2f}x ({won['ci'][0]:.2f}-{won['ci'][1]:.2f}x)" in text
        ), name
        assert f"{again['ratio']:.2f}x ({again['ci'][0]:.2f}-{again['ci'][1]:.2f}x) on {name}" in text, name
    soho = record["result"]["verdicts"]["soho"]["plan_over_tuned"]
    assert f"interval {soho['ci'][0]:.2f}-{soho['ci'][1]:.2f}x, p = {soho['p']:.5f}" in text
    assert ("peers goal met" in text) == record["result"]["met"]


def test_the_clients_figures_are_the_recorded_ones():
    record = json.loads((TOP / "bench" / "results" / "clients.json").read_text())
    r = record["result"]
    text = " ".join(README.split())
    steps = {s["clients"]: s for s in r["scaling"]}
    rates = ", ".join(f"{steps[n]['MB/s']:.1f}" for n in (1, 2)) + f" and {steps[4]['MB/s']:.1f} MB/s"
    shares = ", ".join(f"{steps[n]['MB/s'] / steps[n]['limit']:.1%}" for n in (1, 2))
    shares += f" and {steps[4]['MB/s'] / steps[4]['limit']:.1%}"
    each = steps[4]["each"]
    assert f"1, 2 and 4 clients {rates} = {shares} of the link's goodput" in text
    assert f"Jain's index {steps[4]['jain']:.3f} ({min(each):.1f}-{max(each):.1f} MB/s each of 4)" in text
    worse = {(row["workload"].split(" @")[0], row["metric"]): row["worse"] for row in r["stress"]}
    for words, key in (
        ("seq-read", ("seq-read", "MB/s")),
        ("sync 4K write latency p50", ("sync-write", "sync 4K latency p50")),
        ("and p99", ("sync-write", "sync 4K latency p99")),
        ("small-file creates", ("small-files", "create ops/s")),
        ("(p99 latency", ("small-files", "create latency p99")),
        ("stats", ("small-files", "stat ops/s")),
        ("reads", ("small-files", "read ops/s")),
        ("deletes", ("small-files", "delete ops/s")),
    ):
        assert f"{words} {worse[key]:.2f}x" in text, words
    assert ("clients goal met" in text) == r["met"]


def test_optimize_s_looks_are_the_recorded_ones():
    record = json.loads((TOP / "bench" / "results" / "paired-optimize.json").read_text())
    ab = json.loads((TOP / "bench" / "results" / "paired.json").read_text())
    cells = {(c["condition"], c["change"]): c for c in record["cells"]}
    share = lambda cell, method, key: f"{100 * cell[method][key] / cell['trials']:.1f}%"
    calm, five, fifteen = (cells[(c, -0.1)] for c in ("calm, CV 2%", "disturbed, jitter 5%", "disturbed, jitter 15%"))
    noisy, ab_noisy = (
        cells[("calm, CV 5%", -0.1)],
        next(c for c in ab["cells"] if c["condition"] == "calm, CV 5%" and c["change"] != 0),
    )
    worst = max((c for c in record["cells"] if c["change"] == 0), key=lambda c: c["paired"]["false"])
    said = (
        f"looking from pair {record['min_pairs']} to {record['max_pairs']}: `bench/paired.py --schedule optimize`, "
        f"recorded in `bench/results/paired-optimize.json`, goal {'met' if record['met'] else 'NOT met'}: a clear 10% "
        f"change at CV 2% settled in {calm['paired']['mean_pairs']} pairs against "
        f"{next(c for c in ab['cells'] if c['condition'] == 'calm, CV 2%' and c['change'] != 0)['paired']['mean_pairs']}"
        f" with ab's looks from {ab['min_pairs']}; under noise.py's disturbance found in {share(five, 'paired', 'found')}"
        f" and {share(fifteen, 'paired', 'found')} of runs (rank test {share(five, 'rank', 'found')} and "
        f"{share(fifteen, 'rank', 'found')}); A/A false verdicts at most {share(worst, 'paired', 'false')} "
        f"({worst['condition']}); the price of the shorter budget: at CV 5% a 10% change found in "
        f"{share(noisy, 'paired', 'found')} of runs, with ab's {share(ab_noisy, 'paired', 'found')})"
    )
    assert said in " ".join(README.split())


def test_the_results_page_indexes_every_record_as_bench_results_page_renders_it():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(TOP / "bench" / "results_page.py"), "--check"], cwd=TOP)
    assert done.returncode == 0, "run bench/results_page.py and commit docs/results.md"
    page = (TOP / "docs" / "results.md").read_text()
    assert all(f"[{p.stem}](../bench/results/{p.name})" in page for p in (TOP / "bench" / "results").glob("*.json"))


def test_the_signing_rule_states_the_recorded_costs():
    """smb-signing-cost's doc quotes bench/signing.py's run: what HMAC-first signing cost SMB reads
    at half a core, what the rule's fix won back, and encryption's largest cost."""
    record = json.loads((TOP / "bench" / "results" / "signing.json").read_text())
    lines = record["printed"]
    pick = lambda *words: next(line for line in lines if all(w in line for w in words))
    change = lambda line: re.findall(r"MB/s \(([-+]\d+\.\d)%, ([-+]\d+\.\d%\.\.[-+]\d+\.\d%)", line)[0]
    hmac = change(pick("0.5 CPU, Samba defaults: signing (HMAC-SHA256): seq-read"))
    fix = change(pick("0.5 CPU, signing scenario", "seq-read"))
    worst = min(
        float(m) for m in re.findall(r"\((-?\d+\.\d)%,", " ".join(line for line in lines if "encryption" in line))
    )
    doc = " ".join((TOP / "src/nastune/rules/catalog/smb_signing_cost.md").read_text().split())
    assert f"cost {hmac[0].lstrip('-')}% of SMB reads" in doc
    assert f"won back {fix[0].lstrip('+')}% ({fix[1]})" in doc
    assert f"encryption (AES-128-GCM) cost at most {abs(worst)}%" in doc
    assert record["met"] is False and "a gain inside the noise floor" in doc  # the goal not met, said so
