"""The figures the documents state, each rendered from its bench record: a document holds a block
between `<!-- figures: NAME -->` and `<!-- end of figures -->` that bench/results_page.py fills
with FIGURES[NAME](), so a rerun that moves a figure moves the text, and a test compares them."""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from functools import cache, partial

from record import RESULTS

from nastune.bench.params import DEFAULTS

FIGURES: dict[str, Callable[[], str]] = {}


def figure(name: str) -> Callable[[Callable[[], str]], Callable[[], str]]:
    def register(render: Callable[[], str]) -> Callable[[], str]:
        FIGURES[name] = render
        return render

    return register


@cache
def record(name: str) -> dict:
    """A record, read once however many figures quote it."""
    return json.loads((RESULTS / f"{name}.json").read_text())


def goal(met: bool) -> str:
    return "met" if met else "**not met**"


def pct(share: float) -> str:
    return f"{100 * share:.1f}%"


def link(name: str) -> str:
    return f"[`{name}.json`](../bench/results/{name}.json)"


def main_runs() -> dict[str, dict]:
    return {r["flow"]: r for r in record("main-speed")["runs"]}


PROTOCOL = {"smb": "SMB", "nfs": "NFS", "ftp": "FTP"}


@figure("main-job")
def main_job() -> str:
    """The README's table: each workload the main job moved, before and after, from one run."""
    run = main_runs()["interleaved"]
    ways = {"before_after": "xfs_fsr, measured before and after", "interleaved": "the plan's settings, interleaved"}
    moved = [
        (r, how) for way, how in ways.items() for r in run[way] if (r["metric"], r["verdict"]) == ("MB/s", "better")
    ]
    rows = ["| workload | before | after | change | what changed it |", "|---|---|---|---|---|"]
    rows += [
        f"| {PROTOCOL[r['target'].split(':')[0]]} {r['workload']} | {r['before_median']:.1f} MB/s "
        f"| {r['after_median']:.1f} MB/s | {r['change']:+.0%} | {how} |"
        for r, how in moved
    ]
    left = sum(len(run[way]) for way in ways) - len(moved)
    listed = [r for r in run["interleaved"] if r["workload"] == "big-dir"]
    better = [
        f"{r['metric']} over {PROTOCOL[r['target'].split(':')[0]]} {r['change']:+.0%}"
        for r in listed
        if r["verdict"] == "better"
    ]
    lists = (
        f" Of those, the big directory's listings and lookups: better, {', '.join(better) or 'none'}; "
        f"{sum(r['verdict'] == '~' for r in listed)} of {len(listed)} unchanged."
        if listed
        else ""
    )
    rows.append(f"\n{run['worse']} worse; {left} unchanged or not throughput.{lists} Recorded in {link('main-speed')}.")
    return "\n".join(rows)


@figure("main-speed")
def main_speed() -> str:
    runs, result = main_runs(), record("main-speed")["result"]
    new, old = runs["interleaved"], runs["before-after"]
    phases = new["phases"]
    return (
        f"Interleaved {new['after_setup_s']:.0f} s after set-up, before-after {old['after_setup_s']:.0f} s (ratio "
        f"{result['time_ratio']:.2f}; goal a third or less: {goal(result['met'])}). Of the interleaved flow's time, "
        f"the sequential transfers took {new['transfer_s']:.0f} s, the aged reads before xfs_fsr "
        f"{phases['measure before the one-off actions']:.0f} s, the interleaving {phases['interleave']:.0f} s, of "
        f"which switching {new['switch_s']:.0f} s over {new['pairs']} pairs. Verdicts: {new['better']} better "
        f"against {old['better']}, {new['worse']} worse, {len(new['refused'])} refused."
    )


@figure("main-screen")
def main_screen() -> str:
    """What --screen adds to the main job, and each rule's own effect in that run."""
    r = record("main-screen")
    plain, screened = r["runs"]
    result = r["result"]
    rules = screened["screened"]
    moved = [
        f"{rule['rule']} {row['workload']} @ {PROTOCOL.get(row['target'].split(':')[0], row['target'])} "
        f"{row['change']:+.0%} ({row['change_ci'][0]:+.0%}..{row['change_ci'][1]:+.0%})"
        for rule in rules
        for row in rule["rows"]
        if row["verdict"] == "better" and row["metric"] == "MB/s"
    ]
    runs = len((screened.get("design") or {}).get("runs", []))
    return (
        f"The main job on soho took {plain['after_setup_s']:.0f} s after set-up without `--screen` and "
        f"{screened['after_setup_s']:.0f} s with it ({result['growth']:.2f}x; goal 1.5x at most; their interleaved "
        f"proofs took {plain['pairs']} and {screened['pairs']} pairs), "
        f"{result['reads']:.0f} times a 1 GiB NFS read over the same link ({result['read_s']:.1f} s; goal 32 at most): "
        f"{goal(result['met'])}. The screening measured {len(rules)} rules in {runs} runs "
        f"({screened['phases']['screen']:.0f} s); better on their own: "
        + ("; ".join(moved) or "none")
        + f". Offered for removal: {', '.join(screened['idle']) or 'none'}. Recorded in {link('main-screen')}."
    )


@figure("suite-time")
def suite_time() -> str:
    """CONTRIBUTING.md's: the test command from a fresh clone, in all and by phase."""
    r = record("suite-time")
    p = r["phases"]
    slowest = sorted((t for run in p.values() for t in run["slowest"]), key=lambda t: -t["seconds"])[:3]
    named = ", ".join(f"`{t['test'].split('::')[-1]}` {t['seconds']:.0f} s" for t in slowest)
    return (
        f"Measured on this 2-core machine from a fresh clone (`git clone` of the checkout, then `.ci/run` as root) "
        f"on {r['date'][:10]} at {(r['tested'] or r['commit'])[:9]}: {r['seconds']:,} s in all with set-up "
        f"(goal {r['goal_s']} s: {goal(r['met'])}), exit {r['exit']}; "
        + ", ".join(f"{PHASE_NAMES.get(name, name)} {run['seconds']:.0f} s ({_tests(run)})" for name, run in p.items())
        + f". The slowest: {named}. Recorded in {link('suite-time')}."
    )


def _tests(run: dict) -> str:
    failed = run.get("failed", 0)  # records before bench/suite_time.py read failed runs have none
    return f"{run['tests']:,} tests" + (f", **{failed} failed**" if failed else "")


# how CONTRIBUTING.md calls each of scripts/test's pytest runs (bench/suite_time.py's names)
PHASE_NAMES = {
    "host": "the host tests",
    "lab two at a time": "the namespace lab's two at a time",
    "lab alone": "those alone",
    "kernel lab": "beside them the kernel lab's",
    "fast": "the fast subset",
}


@figure("startup")
def startup() -> str:
    rows = {r["command"]: r for r in record("startup")["rows"]}
    base = rows["python -c pass"]
    said = ", ".join(
        f"`{c}` {rows[c]['median_s'] * 1000:.0f} ms ({rows[c]['ratio']:.1f}x)"
        for c in ("nastune --help", "nastune explain")
    )
    ceiling = record("startup")["goal_ratio"]
    met = all(r["ratio"] <= ceiling for r in rows.values())
    return f"{said}; `python -c pass` {base['median_s'] * 1000:.0f} ms. Goal of {ceiling:.0f}x: {goal(met)}."


@figure("agent-size")
def agent_size() -> str:
    r = record("agent-size")
    ran = "worked" if r["core"]["inspect_works"] else "failed"
    return (
        f"Core {r['core']['bytes'] / 1e6:.0f} MB, controller {r['controller']['bytes'] / 1e6:.0f} MB, "
        f"{r['ratio']:.0%}; `inspect` on the core alone {ran}. Goal: {goal(r['met'])}."
    )


@figure("coverage")
def coverage() -> str:
    r = record("coverage")

    def span(cells: list[dict], key: str) -> str:
        shares = [c[key] / c["trials" if key == "plain95" else "given"] for c in cells]
        return f"{100 * min(shares):.1f}-{100 * max(shares):.1f}%"

    three = [c for c in r["cells"] if c["n"] == [3, 3]]
    small = [c for c in r["cells"] if c["n"] in ([3, 5], [4, 4])]
    return (
        f"At 3 + 3 repeats the plain 95% bootstrap interval held the true change in {span(three, 'plain95')} of A/A "
        'runs, so none is given ("too few repeats for an interval"); at 3 + 5 and 4 + 4 it held it in '
        f"{span(small, 'plain95')}, and the 99% percentiles nastune uses there in {span(small, 'covered')}. "
        f"Goal {r['goal']:.0%}: {goal(r['met'])}."
    )


def paired_cells(name: str) -> dict[tuple[str, float], dict]:
    return {(c["condition"], c["change"]): c for c in record(name)["cells"]}


def share(cell: dict, method: str, key: str) -> str:
    return pct(cell[method][key] / cell["trials"])


def worst_false(name: str, method: str) -> dict:
    return max((c for c in record(name)["cells"] if c["change"] == 0), key=lambda c: c[method]["false"])


@figure("paired")
def paired() -> str:
    r, cells = record("paired"), paired_cells("paired")
    five, fifteen = cells[("disturbed, jitter 5%", -0.1)], cells[("disturbed, jitter 15%", -0.1)]
    calm, noisy = cells[("calm, CV 2%", -0.1)], cells[("calm, CV 5%", -0.1)]
    worst, rank = worst_false("paired", "paired"), worst_false("paired", "rank")
    return (
        f"{five['trials']} simulated runs per cell, looking from pair {r['min_pairs']} to {r['max_pairs']}. Under a "
        f"disturbance like noise.py's, a 10% change found in {share(five, 'paired', 'found')} and "
        f"{share(fifteen, 'paired', 'found')} of runs against the rank test's {share(five, 'rank', 'found')} and "
        f"{share(fifteen, 'rank', 'found')}, in {five['paired']['mean_pairs']} and {fifteen['paired']['mean_pairs']} "
        f"pairs; calm at CV 2%, in {calm['paired']['mean_pairs']} pairs against {calm['rank']['mean_pairs']}; calm at "
        f"CV 5%, found in {share(noisy, 'paired', 'found')} against the rank test's {share(noisy, 'rank', 'found')}. "
        f"A/A false verdicts at most {share(worst, 'paired', 'false')} ({worst['condition']}; rank test "
        f"{share(rank, 'rank', 'false')}, {rank['condition']}). Goal: {goal(r['met'])}."
    )


@figure("paired-optimize")
def paired_optimize() -> str:
    r, cells, ab = record("paired-optimize"), paired_cells("paired-optimize"), paired_cells("paired")
    calm, five, fifteen = (cells[(c, -0.1)] for c in ("calm, CV 2%", "disturbed, jitter 5%", "disturbed, jitter 15%"))
    noisy, ab_noisy, ab_calm = cells[("calm, CV 5%", -0.1)], ab[("calm, CV 5%", -0.1)], ab[("calm, CV 2%", -0.1)]
    worst = worst_false("paired-optimize", "paired")
    return (
        f"Looking from pair {r['min_pairs']} to {r['max_pairs']}: a clear 10% change at CV 2% settled in "
        f"{calm['paired']['mean_pairs']} pairs against {ab_calm['paired']['mean_pairs']} with ab's schedule; under "
        f"noise.py's disturbance found in {share(five, 'paired', 'found')} and {share(fifteen, 'paired', 'found')} "
        f"of runs (rank test {share(five, 'rank', 'found')} and {share(fifteen, 'rank', 'found')}); A/A false "
        f"verdicts at most {share(worst, 'paired', 'false')} ({worst['condition']}). The price of the shorter "
        f"budget: at CV 5% a 10% change found in {share(noisy, 'paired', 'found')} of runs, with ab's "
        f"{share(ab_noisy, 'paired', 'found')}. Goal: {goal(r['met'])}."
    )


@figure("noise")
def noise() -> str:
    record_ = record("noise")
    r = record_["result"]
    return (
        f"{r['trials']} trials of {record_['size']} transfers. A/A: before/after called the system changed in "
        f"{r['before_after_changed']}, interleaving in {r['interleaved_changed']} (goal at most 5%), with a metric "
        f"refused by the A/A control in {r['interleaved_refused']}. The real change, measured "
        f"{r['median_change_measured']:+.1%} (median), found in {r['ten_percent_found']} (goal at least 95%), refused "
        f"in {r['ten_percent_refused']}, median {r['median_seconds_to_verdict']:.0f} s to the verdict. Goal: "
        f"{goal(r['met'])}."
    )


@figure("attribution")
def attribution() -> str:
    r = record("attribution")["result"]
    hits = ", ".join(f"{s} {h['hit']}/{h['runs']} ({h['injected']})" for s, h in r["hits"].items())
    cost = r["overhead"]
    on, off = (statistics.median(cost[k]) for k in ("profiled", "unprofiled"))
    return (
        f"The injected limit named first: {hits}. The profiler's cost, NFS seq-read on modern: {on:.1f} MB/s "
        f"profiled, {off:.1f} unprofiled, {len(cost['profiled'])} repeats each, alternated ({cost['cost']:+.1%}, goal "
        f"under 2%). Goal: {goal(r['met'])}."
    )


@figure("clients")
def clients() -> str:
    r = record("clients")["result"]
    steps = {s["clients"]: s for s in r["scaling"]}
    rates = ", ".join(f"{steps[n]['MB/s']:.1f}" for n in sorted(steps))
    shares = ", ".join(pct(steps[n]["MB/s"] / steps[n]["limit"]) for n in sorted(steps))
    most = steps[max(steps)]
    stress = ["| workload | metric | idle | loaded | times worse |", "|---|---|---|---|---|"]
    stress += [
        f"| {row['workload'].split(' @')[0]} | {row['metric']} | {row['idle']:.1f} {row['unit']} "
        f"| {row['loaded']:.1f} {row['unit']} | {row['worse']:.2f}x |"
        for row in r["stress"]
    ]
    return (
        f"Aggregate seq-write of {', '.join(map(str, sorted(steps)))} clients: {rates} MB/s = {shares} of the link's "
        f"goodput; Jain's index {most['jain']:.3f} ({min(most['each']):.1f}-{max(most['each']):.1f} MB/s each of "
        f"{max(steps)}). Goal: {goal(r['met'])}.\n\nOne client measuring while the others load the NAS, against the "
        "idle NAS:\n\n" + "\n".join(stress)
    )


def speed(name: str) -> str:
    r = record(name)
    return f"{r['trial_s']:.1f} s a trial (median), {r['measuring_s']:.1f} s of it measuring, {r['data_s']:.1f} s"


@figure("autotune-speed")
def autotune_speed() -> str:
    now = record("autotune-speed")
    return (
        f"Lab soho, {now['workload']}, budget {now['budget']}, {now['repeats']} repeats of {now['size']}: "
        f"{speed('autotune-speed')} of data at the link's goodput; before a trial found its targets and warmed up "
        f"once ({link('autotune-speed-before')}): {speed('autotune-speed-before')}."
    )


def printed(name: str) -> str:
    return "```\n" + "\n".join(record(name)["printed"]) + "\n```"


@figure("autotune-replay-soho")
def replay_soho() -> str:
    return printed("autotune-replay-soho")


@figure("autotune-replay-soho-wide")
def replay_soho_wide() -> str:
    return printed("autotune-replay-soho-wide")


def peers_of(name: str) -> str:
    r = record(name)
    labels = ("TuneD throughput-performance", "TuneD network-throughput", "nastune plan", "nastune autotune")
    rows = [f"| | {' | '.join(r['rows'])} |", "|---" * (len(r["rows"]) + 1) + "|"]
    for label in labels:
        cells = []
        for rows_ in r["rows"].values():
            base = {k: statistics.median(v) for k, v in rows_["defaults"].items()}
            ratios = [statistics.median(v) / base[k] for k, v in rows_[label].items()]
            cells.append(f"{statistics.geometric_mean(ratios):.2f}x")
        rows.append(f"| {label} | {' | '.join(cells)} |")
    said = []
    for name, v in r["result"]["verdicts"].items():
        won, again = v["plan_over_tuned"], v["autotune_over_plan"]
        said.append(
            f"{name}: the plan {won['ratio']:.2f}x TuneD's best ({v['tuned_best']}, {won['ci'][0]:.2f}-"
            f"{won['ci'][1]:.2f}x, p = {won['p']:.5f}); autotune over the plan {again['ratio']:.2f}x "
            f"({again['ci'][0]:.2f}-{again['ci'][1]:.2f}x)"
        )
    return "\n".join(rows) + "\n\n" + "; ".join(said) + f". Goal: {goal(r['result']['met'])}."


def signing_row(run: str, change: str, workload: str, name: str = "signing") -> dict:
    rows = record(name)["runs"][run][change]["rows"]
    return next(r for r in rows if r["workload"] == workload)


def interval(row: dict) -> str:
    low, high = row["change_ci"]
    return f"{row['change']:+.1%} ({low:+.1%}..{high:+.1%})"


def protection_runs(name: str) -> str:
    """Every interleaved A/B of a bench/signing.py record: medians, change with its interval, verdict."""
    r = record(name)
    lines = [
        f"- {run}, {change}: {row['workload']} {row['before_median']:.1f} -> {row['after_median']:.1f} MB/s, "
        f"{interval(row)}, verdict {row['verdict']}"
        for run, changes in r["runs"].items()
        for change, ab in changes.items()
        for row in ab["rows"]
    ]
    return "\n".join(lines) + f"\n\nGoal: {goal(r['met'])}."


for _record in ("peers", "peers-signing", "peers-encrypted"):  # one table per peers.py record
    figure(_record)(partial(peers_of, _record))
for _record in ("signing", "signing-10gbit"):  # one list per signing.py record
    figure(_record)(partial(protection_runs, _record))


@figure("signing-rule")
def signing_rule() -> str:
    """smb-signing-cost's doc: what HMAC-first signing cost reads at half a core, what the fix won back."""
    hmac = signing_row("0.5 CPU, Samba defaults", "signing (HMAC-SHA256)", "seq-read")
    fix = signing_row("0.5 CPU, signing scenario", "the rule's fix", "seq-read")
    encryption = min(
        row["change"]
        for run in record("signing")["runs"].values()
        for row in run.get("encryption (AES-128-GCM)", {}).get("rows", [])
    )
    won = "a significant gain" if fix["verdict"] == "better" else "a gain inside the noise floor of a verdict"
    return (
        "On nastune's lab, whose CPU has AES-NI (servers at half a core, 1 Gbit), requiring signing with "
        f"HMAC-SHA256 first cost {-hmac['change']:.1%} of SMB reads against no signing, and moving AES-128-GMAC "
        f"first won back {interval(fix)}, {won}; "
        f"encryption (AES-128-GCM) cost at most {-encryption:.1%}."
    )


@figure("signing-rule-10gbit")
def signing_rule_10gbit() -> str:
    """smb-signing-cost's doc: the same at 10 Gbit, where the CPU each byte costs decides."""
    at = "0.5 CPU, 10gbit"
    hmac = signing_row(f"{at}, Samba defaults", "signing (HMAC-SHA256)", "seq-read", "signing-10gbit")
    fix = signing_row(f"{at}, signing scenario", "the rule's fix", "seq-read", "signing-10gbit")
    return (
        f"On a 10 Gbit link (servers at half a core), HMAC-SHA256 first cost {-hmac['change']:.1%} of SMB reads "
        f"against no signing ({hmac['before_median']:.0f} -> {hmac['after_median']:.0f} MB/s), and moving "
        f"AES-128-GMAC first won back {interval(fix)}, verdict {fix['verdict']}."
    )


@figure("encryption-rule")
def encryption_rule() -> str:
    """smb-encryption-cost's doc: what AES-GCM first wins where encryption is required, and what
    encryption itself costs, at 10 Gbit with the servers at half a core."""
    at = "0.5 CPU, 10gbit"
    read, write = (
        signing_row(f"{at}, encrypted scenario", "the rule's fix", w, "signing-10gbit")
        for w in ("seq-read", "seq-write")
    )
    cost = signing_row(f"{at}, Samba defaults", "encryption (AES-128-GCM)", "seq-read", "signing-10gbit")
    return (
        "On nastune's lab (a CPU with AES-NI, 10 Gbit, servers at half a core), with encryption required and "
        f"AES-CCM first, moving AES-128-GCM first made SMB reads {1 + read['change']:.1f}x as fast "
        f"({read['before_median']:.0f} -> {read['after_median']:.0f} MB/s, {interval(read)}) and writes "
        f"{1 + write['change']:.1f}x ({interval(write)}); encryption with AES-128-GCM first still cost "
        f"{-cost['change']:.1%} of reads against none."
    )


@figure("kernel-lab")
def kernel_lab() -> str:
    """docs/lab.md: what the kernel lab costs here, beside the namespace lab in the same run."""
    found = record("kernel-lab")
    result, repeats = found["result"], len(found["repeats"]["kernel_up_s"])
    how = "under software emulation" if found["emulated"] else "under KVM"
    return (
        f"Measured here ({link('kernel-lab')}, {repeats} rounds {how}): building the guest image took "
        f"{result['build_s']:.0f} s ({result['image_mib']} MiB), once per machine; `lab up --kernel` took "
        f"{result['median_kernel_up_s']:.0f} s (median), {result['up_ratio']:.1f}x the namespace lab's `lab up` "
        f"of {result['median_lab_up_s']:.0f} s measured beside it, and a reboot of its NAS "
        f"{result['median_reboot_s']:.0f} s."
    )


@figure("kernel-article")
def kernel_article() -> str:
    """docs/lab.md: the NFS article's client options judged on the kernel lab's mounts, run after run."""
    r = record("kernel-article")
    runs = r["runs"]
    lines = []
    for workload in ("seq-read", "seq-write"):
        rows = [row for run in runs for row in run["rows"] if row["workload"] == workload]
        said = "; ".join(
            f"{row['verdict']} {row['change']:+.0%} ({row['change_ci'][0]:+.0%}..{row['change_ci'][1]:+.0%})"
            for row in rows
        )
        better = sum(row["verdict"] == "better" for row in rows)
        lines.append(f"{workload} better in {better} of {len(runs)} ({said})")
    pairs = ", ".join(str(run["pairs"]) for run in runs)
    minutes = statistics.median(run["seconds"] for run in runs) / 60
    return (
        f"Run {len(runs)} times here ({link('kernel-article')}, under software emulation, at most "
        f"{r['max_pairs']} pairs; {pairs} were used; {minutes:.1f} min a run with the guest's boot): "
        + "; ".join(lines)
        + ". Each interval is the 95% one; a verdict also needs p below its look's share of 5% (a run looks "
        "at its pairs more than once), so an interval above zero can still read ~."
    )


@figure("kernel-noac")
def kernel_noac() -> str:
    """nfs-client-noac's doc: actimeo=0 removed from a kernel client's mount, judged on a big directory."""
    r = record("kernel-noac")
    runs = r["runs"]
    said = []
    for metric in ("list entries/s", "miss latency"):
        rows = [row for run in runs for row in run["rows"] if row["metric"] == metric]
        said.append(f"{metric}: " + "; ".join(f"{row['verdict']} {_change(row)}" for row in rows))
    minutes = statistics.median(run["seconds"] for run in runs) / 60
    rates = [run["values"]["big-dir"]["list entries/s"] for run in runs]
    files = DEFAULTS["dir_files"]  # what big-dir lists when not told otherwise, as the bench ran it
    took = {side: statistics.median(files / v for rate in rates for v in rate[side]) for side in ("A", "B")}
    return (
        f"On the kernel lab's kernel-noac scenario (a client mounting NFSv3 with actimeo=0, 2 ms away), this rule "
        f"alone, interleaved on the client's own mount with big-dir ({files:,} files listed with their attributes "
        f"after the client's dentries are dropped, and missing names looked up), run {len(runs)} times under software "
        f"emulation ({minutes:.0f} min a run with the guest's boot): a listing took {took['A']:.0f} s with actimeo=0 "
        f"and {took['B']:.1f} s without (medians); "
        + "; ".join(said)
        + " (bench/results/kernel-noac.json). Emulation sets these figures, not a NAS's; the round trips a listing "
        "saves are the kernel's own."
    )


def _change(row: dict) -> str:
    """A change and its interval: as a factor where it is more than double."""
    low, high = row["change_ci"]
    if row["change"] > 1:
        return f"{1 + row['change']:.0f}x ({1 + low:.0f}x..{1 + high:.0f}x)"
    return f"{row['change']:+.0%} ({low:+.0%}..{high:+.0%})"


@figure("screen-simulated")
def screen_simulated() -> str:
    """How often `optimize --screen` offers for removal a change that does nothing, and a change
    that matters, simulated by number of rules, spread and size of the change that matters."""
    r = record("screen-simulated")
    changes = sorted({c["change"] for c in r["simulation"]})
    cell = {(c["rules"], c["spread"], c["change"]): c for c in r["simulation"]}
    rows = ["| rules | spread of one run | " + " | ".join(f"{x:+.0%}" for x in changes) + " |"]
    rows += ["|---|---|" + "---|" * len(changes)]
    for rules, spread in sorted({(c["rules"], c["spread"]) for c in r["simulation"]}):
        shares = (cell[(rules, spread, x)] for x in changes)
        rows.append(
            f"| {rules} ({r['runs_per_screening'][str(rules)]} runs) | {spread:.0%} | "
            + " | ".join(f"{pct(c['nothing_offered'])} ({pct(c['matters_offered'])})" for c in shares)
            + " |"
        )
    return (
        "How often a change that does nothing was offered for removal, and in brackets how often the change "
        f"that matters was, by the size of its change, {r['trials']} simulated screenings per cell, each "
        f"fitted with {r['pairs']} interleaved pairs:\n\n" + "\n".join(rows)
    )


@figure("screen-heldout")
def screen_heldout() -> str:
    """Whether `optimize --screen` kept a 5% change and offered one worth nothing, on the lab."""
    r = record("screen-heldout")
    done = [run for run in r["runs"] if run["offered"] is not None]
    minutes = statistics.median(run["seconds"] for run in done) / 60
    unseen = [run["unseen"] for run in done if run["unseen"] is not None]
    return (
        "On the lab's modern NAS (iperf3 both ways; jumbo frames worth about +5% against a TCP setting that "
        f"cannot move a transfer that never idles): the +5% rule offered for removal in {r['matters_offered']} of "
        f"{r['measured']} runs, the other in {r['nothing_offered']}, a median {minutes:.1f} min each; the "
        f"smallest effect each run could miss was {pct(min(unseen))}-{pct(max(unseen))}. Goal (the first never, "
        f"the second in 7 of 10): {goal(r['met'])}."
    )


@figure("bigdir-case")
def bigdir_case() -> str:
    """What case sensitive = yes bought on the bigdir scenario, over SMB."""
    r = record("bigdir-case")
    smb = {row["metric"]: row for row in r["rows"] if row["target"].startswith("smb")}
    miss, listing = smb["miss latency"], smb["list entries/s"]
    low, high = miss["change_ci"]
    fired = " and ".join(f for f in ("smb-case-big-dir", "smb-macos-fruit") if f in r["findings"])
    return (
        f"On the lab's bigdir scenario (where {fired} fire), `case sensitive = yes` "
        f"interleaved against `auto` for {r['pairs']} pairs: a missing name in a directory of 5,000 files took "
        f"{miss['before_median']:.0f} -> {miss['after_median']:.0f} us over SMB ({miss['change']:+.0%}, "
        f"{low:+.0%}..{high:+.0%}): {miss['verdict']}; listing it, {listing['before_median']:,.0f} -> "
        f"{listing['after_median']:,.0f} entries/s: {listing['verdict']} (bench/results/bigdir-case.json)."
    )


@figure("bigdir-screen")
def bigdir_screen() -> str:
    """Which of the bigdir scenario's rules moved the big directory, by each rule's own effect."""
    r = record("bigdir-screen")
    moved = [
        f"{rule['rule']}: {row['metric']} over {PROTOCOL[row['target'].split(':')[0]]} {row['change']:+.0%} "
        f"({row['change_ci'][0]:+.0%}..{row['change_ci'][1]:+.0%}), {row['verdict']}"
        for rule in r["screened"]
        for row in rule["rows"]
        if row["verdict"] != "~"
    ]
    still = [rule["rule"] for rule in r["screened"] if all(row["verdict"] == "~" for row in rule["rows"])]
    return (
        f"With every rule the scenario fires whose change it can make ({len(r['screened'])}: their settings proved "
        f"together, then each rule's own effect from {len(r['design']['runs'])} runs, "
        f"`optimize --screen -w big-dir`, {r['seconds']} s in all): "
        + "; ".join(moved)
        + f". No change beyond the noise: {', '.join(still)} (bench/results/bigdir-screen.json)."
    )


@figure("bigdir-scale")
def bigdir_scale() -> str:
    """A missing name's lookup and a listing against the directory's size, by protocol."""
    r = record("bigdir-scale")
    sizes = r["sizes"]
    median = lambda n, kind, metric: statistics.median(r["runs"][str(n)][kind][metric])
    named = {**PROTOCOL, "path": "the NAS's own path"}
    misses = [
        f"{named[kind]} "
        + " -> ".join(f"{median(n, kind, 'miss latency'):,.0f}" for n in sizes)
        + f" us ({r['result']['growth'][kind]:.1f}x)"
        for kind in r["runs"][str(sizes[0])]
    ]
    listing = ", ".join(f"{median(sizes[-1], kind, 'list entries/s'):,.0f}" for kind in ("smb", "nfs", "ftp"))
    return (
        f"A missing name's lookup in directories of {', '.join(f'{n:,}' for n in sizes)} files ({r['repeats']} repeats "
        f"each, medians, Samba as it ships on the lab's `modern`): {'; '.join(misses)}. Listing {sizes[-1]:,} "
        f"files: {listing} entries/s over SMB, NFS and FTP. Goal ({r['goal']}): {goal(r['result']['met'])} "
        "(bench/results/bigdir-scale.json)."
    )


@figure("zfs-pool")
def zfs_pool() -> str:
    """The ZFS pool's recordsize and log-device ratios, measured side by side on the kernel lab."""
    sizes, slog = record("zfs-recordsize"), record("zfs-slog")
    said = {r["job"]: r for r in sizes["ratios"] + slog["ratios"]}
    w, rd, rnd, sync = (said[j] for j in ("seq-write", "seq-read", "rand-write-16k", "sync-write-16k"))
    return (
        f"Measured here ([`zfs-recordsize.json`](../bench/results/zfs-recordsize.json), "
        f"[`zfs-slog.json`](../bench/results/zfs-slog.json), {sizes['rounds']} rounds alternating, fio on the "
        f"guest under software emulation, raidz of three disks at 200 IOPS): recordsize 1M against 128K, "
        f"sequential writes of 1 MiB {w['ratio']:.2f}x ({w['a_median']:.0f} -> {w['b_median']:.0f} MB/s) and reads "
        f"{rd['ratio']:.2f}x ({rd['a_median']:.0f} -> {rd['b_median']:.0f} MB/s); 16 KiB random writes on "
        f"recordsize 16K against 128K {rnd['ratio']:.1f}x ({rnd['a_median']:.0f} -> {rnd['b_median']:.0f} IOPS); "
        f"16 KiB synchronous writes with the spare disk as a log device against without {sync['ratio']:.1f}x "
        f"({sync['a_median']:.0f} -> {sync['b_median']:.0f} IOPS). The directions are OpenZFS's; the sizes "
        "are emulation's."
    )


@figure("keep-stability")
def keep_stability() -> str:
    """Whether the main job keeps the same rules run after run."""
    r = record("keep-stability")
    runs = r["runs"]
    helped = sorted({k for run in runs for k, v in run["standing"].items() if v == "helped"})
    always = [k for k in helped if all(run["standing"].get(k) == "helped" for run in runs)]
    offered = sorted({k for run in runs for k in run["offered"]})
    minutes = statistics.median(run["seconds"] for run in runs) / 60
    return (
        f"On the lab's soho, {len(runs)} main jobs with the screening in a row "
        "([`keep-stability.json`](../bench/results/keep-stability.json)): the same "
        f"{len(r['kept'])} rules kept in {r['same']} of {len(runs)}; offered for removal in some run: "
        f"{', '.join(offered) or 'none'}; helped on their own in every run: {', '.join(always) or 'none'}, in "
        f"some: {', '.join(k for k in helped if k not in always) or 'none'}; the rest not resolved, which the "
        f"closing lines name. A median {minutes:.1f} min a run. Goal (the same set in 9 of 10): {goal(r['met'])}."
    )


@figure("kernel-cliff")
def kernel_cliff() -> str:
    """The kernel-cliff scenario's sustained write before and after the dirty-data rule's change,
    sized by the rule from the measured run."""
    r = record("kernel-cliff")
    side = lambda runs, key: ", ".join(f"{run[key]:g}" for run in runs)
    changes = ", ".join(f"{c['target']} {c['current']} -> {c['new']}" for c in r["finding"]["changes"])
    return (
        f"Measured here ([`kernel-cliff.json`](../bench/results/kernel-cliff.json), {len(r['before'])} repeats a "
        f"side, 2 GiB each on the client's NFS mount, the disk held to {r['disk_write_bps'] >> 20} MB/s, under "
        "software emulation). `diagnose --profile` of the first run fired vm-dirty-writeback: "
        f'"{r["finding"]["message"]}" Its changes ({changes}) applied, the slowest 5 seconds after the burst '
        f"went from {side(r['before'], 'worst')} to {side(r['after'], 'worst')} MB/s, the seconds stalled from "
        f"{side(r['before'], 'stalls')} to {side(r['after'], 'stalls')}, the sustained rate from "
        f"{side(r['before'], 'sustained')} to {side(r['after'], 'sustained')} MB/s. Under emulation the course is "
        "a sawtooth from the start (the client's write-back and the server's share one guest kernel): the burst "
        "does not stand out as on hardware, and the stalled seconds move from repeat to repeat; the slowest 5 s "
        "and the sustained rate are the steadier marks."
    )


@figure("kernel-cliff-optimize")
def kernel_cliff_optimize() -> str:
    """optimize on the kernel-cliff scenario, as an operator runs it with --profile: the plan,
    the interleaved verdicts, the control's refusals and each side's courses."""
    r = record("kernel-cliff-optimize")
    judged = [row for row in r["summary"]["rows"] if row["metric"] in ("sustained MB/s", "MB/s", "worst 5 s MB/s")]
    rows = "; ".join(
        f"{row['metric']} {row['before_median']:.1f} -> {row['after_median']:.1f} ({row['verdict']}, "
        f"{row['change_ci'][0]:+.0%} to {row['change_ci'][1]:+.0%})"
        for row in judged
    )
    side = lambda name, key: ", ".join(f"{run[key]:g}" for run in r["runs"][name])
    refused = ", ".join(m.rsplit(" @ ", 1)[1].split(" ", 1)[1] for m in r["summary"]["refused"]) or "none"
    better = [row["metric"] for row in judged if row["verdict"] == "better"]
    said = (
        f"better beyond the noise: {', '.join(better)}"
        if better
        else "in the direction the rule says, with too few pairs under emulation for an interval that excludes "
        "no change"
    )
    return (
        f"`optimize --lab --kernel --scenario kernel-cliff -w sustained-write --profile` "
        f"([`kernel-cliff-optimize.json`](../bench/results/kernel-cliff-optimize.json), {r['summary']['pairs']} pairs "
        f"under emulation) applied vm-dirty-writeback's change and judged it interleaved: {rows}; left without "
        f"a verdict by the run's A/A control: {refused}. Per repeat, the slowest 5 s went from "
        f"{side('a', 'worst')} (A) to {side('b', 'worst')} MB/s (B), the seconds stalled from {side('a', 'stalls')} "
        f"to {side('b', 'stalls')}: {said}. The report ({r['report']['bytes'] // 1000} kB) draws A's course "
        "against B's."
    )
