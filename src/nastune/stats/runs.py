"""Comparing two result files: metric by metric, refusing comparisons that mean nothing
(another target or other workload parameters) and noting what changed in between (kernel,
settings), which is how a regression after an upgrade (as in Qumulo's Linux 5.4 regression) is caught."""

from __future__ import annotations

from collections.abc import Callable

from nastune.bench.results import Interleaving, ResultSet, WorkloadResult
from nastune.errors import UsageError
from nastune.stats.compare import ALPHA, compare, smallest_p
from nastune.stats.paired import compare_pairs
from nastune.wire import Comparison, Verdict

Comparing = Callable[[list[float], list[float], bool, float, float], Comparison]


class Incomparable(UsageError):
    """Two runs whose numbers do not measure the same thing (another target, other parameters)."""


def worse(rows: list[Verdict]) -> list[str]:
    """The metrics judged worse, by name."""
    return [r.name for r in rows if r.verdict == "worse"]


def _flatten(d: object, prefix: str = "") -> dict[str, object]:
    out = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(_flatten(v, f"{prefix}{k}."))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            out.update(_flatten(v, f"{prefix}{i}."))
    else:
        out[prefix.rstrip(".")] = d
    return out


def notes(a: ResultSet, b: ResultSet) -> list[str]:
    found = []
    pa, pb = a.provenance, b.provenance
    if pa.host != pb.host:
        found.append(f"measured on different hosts: {pa.host or 'unrecorded'} -> {pb.host or 'unrecorded'}")
    if pa.lab_scenario != pb.lab_scenario:
        found.append(f"lab scenario changed: {pa.lab_scenario} -> {pb.lab_scenario}")
    if pa.nastune != pb.nastune:
        found.append(f"nastune changed: {pa.nastune} -> {pb.nastune}")
    if pa.facts_sha256 != pb.facts_sha256:
        found.append("the system's facts differ between the runs (diff the facts files their provenance names)")
    for label, rs in (("first", a), ("second", b)):
        cut = [r.key for r in rs.results if r.interrupted]
        if cut:
            found.append(f"the {label} run was interrupted during {', '.join(cut)}: fewer repeats than asked")
    if a.provenance.kernel != b.provenance.kernel:
        found.append(
            f"kernel changed: {a.provenance.kernel} -> {b.provenance.kernel} "
            "(a kernel upgrade can change drivers and IRQ placement, as Qumulo found moving to Linux 5.4)"
        )
    sa, sb = _flatten(a.provenance.settings), _flatten(b.provenance.settings)
    for key in sorted(set(sa) | set(sb)):
        if sa.get(key) != sb.get(key):
            found.append(f"setting {key}: {sa.get(key)!r} -> {sb.get(key)!r}")
    for tool in sorted(set(a.provenance.tools) | set(b.provenance.tools)):
        if a.provenance.tools.get(tool) != b.provenance.tools.get(tool):
            found.append(f"{tool} changed: {a.provenance.tools.get(tool)} -> {b.provenance.tools.get(tool)}")
    return found


def _link_changed(ra: WorkloadResult, rb: WorkloadResult) -> str | None:
    """A note when the link's physical limit moved between the runs: through the MTU (a tuning
    may do that on purpose) or with the MTU unchanged (the link's speed: not the tuning)."""
    limits = [(m.limit, rb.metrics[n].limit) for n, m in ra.metrics.items() if n in rb.metrics]
    moved = [(x, y) for x, y in limits if x and y and abs(y / x - 1) > 0.01]
    if not moved:
        return None
    (x, y), mtus = moved[0], (ra.target.mtu, rb.target.mtu)
    if mtus[0] != mtus[1]:
        return f"the link's goodput limit moved {x:.1f} -> {y:.1f} MB/s with the MTU ({mtus[0]} -> {mtus[1]})"
    return (
        f"the link's goodput limit moved {x:.1f} -> {y:.1f} MB/s at the same MTU: the link's speed changed "
        "between the runs, which may explain a change the tuning did not make"
    )


def _once(notes: dict[str, list[str]]) -> list[str]:
    """One note per message, naming the workloads it holds for rather than repeating it for each."""
    return [
        f"{note} ({', '.join(keys) if len(keys) < 3 else f'{len(keys)} workloads'})" for note, keys in notes.items()
    ]


def failures(runs: list[ResultSet]) -> list[str]:
    """One line per workload that failed in any of the runs, for consoles and reports."""
    return [
        f"{rs.label or f'run {i + 1}'}: {r.key} failed: {r.error}"
        for i, rs in enumerate(runs)
        for r in rs.results
        if r.failed
    ]


def _comparable(key: str, ra: WorkloadResult, rb: WorkloadResult, force: bool) -> list[str]:
    """The remarks on one workload measured in both runs; Incomparable when its protocol or its
    parameters differ (unless forced)."""
    remarks = []
    kinds = ra.target.kind, rb.target.kind
    if kinds[0] != kinds[1] and None not in kinds:
        message = f"{key}: measured over {kinds[0]} then over {kinds[1]}"
        if not force:
            raise Incomparable(message + ": not the same protocol (--force compares anyway)")
        remarks.append(message + " (compared anyway: --force)")
    if ra.params != rb.params:
        differing = sorted(k for k in set(ra.params) | set(rb.params) if ra.params.get(k) != rb.params.get(k))
        message = f"{key}: workload parameters differ ({', '.join(differing)})"
        if not force:
            raise Incomparable(message + "; the numbers do not measure the same thing (--force compares anyway)")
        remarks.append(message + " (compared anyway: --force)")
    return remarks


def _rows(
    key: str, ra: WorkloadResult, rb: WorkloadResult, comparing: Comparing, noise_floor: float, alpha: float
) -> list[Verdict]:
    """Each metric both runs hold, compared; Incomparable when its unit or direction changed."""
    rows = []
    for name, ma in ra.metrics.items():
        mb = rb.metrics.get(name)
        if mb is None:
            continue
        if (ma.unit, ma.higher_is_better) != (mb.unit, mb.higher_is_better):
            raise Incomparable(
                f"{key} {name}: measured in {ma.unit} ({'higher' if ma.higher_is_better else 'lower'} is better) "
                f"then in {mb.unit} ({'higher' if mb.higher_is_better else 'lower'} is better): not comparable"
            )
        result = comparing(ma.values, mb.values, ma.higher_is_better, noise_floor, alpha)
        limit = mb.limit or ma.limit  # what the after side is held to (an MTU change moves it)
        rows.append(Verdict.of(ra.workload, ra.target.url, name, ma.unit, ma.higher_is_better, limit, result))
    return rows


def compare_runs(
    a: ResultSet,
    b: ResultSet,
    force: bool = False,
    noise_floor: float = 0.03,
    alpha: float = ALPHA,
    paired: bool = False,
) -> tuple[list[Verdict], list[str]]:
    """Every metric of both runs compared; `paired`: the runs are an interleaved run's A and B,
    their i-th repeats measured in the same pair (stats.paired)."""
    comparing = compare_pairs if paired else compare
    before = {r.key: r for r in a.results}
    after = {r.key: r for r in b.results}
    remarks = notes(a, b)
    rows: list[Verdict] = []
    links: dict[str, list[str]] = {}
    for key in before:
        if key not in after:
            remarks.append(f"{key}: only in the first run")
            continue
        ra, rb = before[key], after[key]
        failed = [(label, r.error) for label, r in (("first", ra), ("second", rb)) if r.failed]
        if failed:
            runs = " and the ".join(f"{label} run ({error})" for label, error in failed)
            remarks.append(f"{key}: FAILED in the {runs}; not compared")
            continue
        remarks += _comparable(key, ra, rb, force)
        rows += _rows(key, ra, rb, comparing, noise_floor, alpha)
        link = _link_changed(ra, rb)
        if link:
            links.setdefault(link, []).append(key)
    remarks += _once(links)
    remarks += [f"{key}: only in the second run" for key in after if key not in before]
    blocked = sorted({r.sizes for r in rows if r.min_p >= alpha})
    for n_a, n_b in blocked:
        remarks.append(
            f"{n_a} against {n_b} repeats: a rank test cannot reach p < {alpha:.3g} with so few (its smallest p is "
            f"{smallest_p(n_a, n_b):.3f}), so no change can be called better or worse (use --repeats 5)"
        )
    if not rows and not any(key in after for key in before):
        raise Incomparable("the two runs share no workload on the same target")
    return rows, remarks


def interleaved(a: ResultSet, b: ResultSet) -> Interleaving | None:
    """The interleaved run whose A and B sides `a` and `b` are, if they are."""
    ia, ib = a.interleaving, b.interleaving
    if ia and ib and ia.run == ib.run and (ia.side, ib.side) == ("A", "B"):
        return ia
    return None


def compare_interleaved(
    a: ResultSet, b: ResultSet, run: Interleaving, force: bool = False
) -> tuple[list[Verdict], list[str]]:
    """An interleaved run's A and B judged as the run judged them: each B against its own pair's
    A, at the run's alpha per look and noise floor, without the metrics its A/A control refused;
    so `ab`, `optimize` and `compare` of their files give one verdict."""
    rows, notes = compare_runs(a, b, force=force, noise_floor=run.noise_floor, alpha=run.alpha, paired=True)
    return [r for r in rows if r.name not in run.refused], notes
