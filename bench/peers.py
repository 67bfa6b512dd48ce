"""nastune beside its peers, measured in one run on the lab (soho, then modern): the system as
the scenario builds it (defaults); Debian's TuneD with its throughput-performance and
network-throughput profiles; nastune's rule-based plan (as optimize applies it); and the plan
autotune found. Each one's SMB and NFS read and write throughput is printed as a ratio to the
defaults.

TuneD is Debian's package (installed here if missing), run as its daemon in the foreground
(--no-dbus) inside the nas's network namespace, so its net.* settings land on the NAS's network
stack; its vm.* and disk settings are kernel-wide and land on the kernel the lab shares with its
clients. What it applied is read back from /proc and /sys, what it could not apply is taken from
its log, and stopping it (it reverts on exit) is checked to restore every value.

"Plan beats TuneD's best" is tested, not read off two means: the geometric mean over the
workloads of the plan's median over TuneD's, with a 95% bootstrap interval (each workload's
repeats resampled) and a one-sided permutation p (each workload's labels shuffled between the two).
TuneD's best is the profile with the higher geometric mean, chosen after the run.

Goals, fixed before the run: nastune's plan at least 1.15x TuneD's best profile
on soho, and better with p < 0.05; autotune at least as good as the plan (not measured below it:
its interval over the plan reaches 1.00x) in every scenario.

    .venv/bin/python bench/peers.py [--scenarios soho,modern] [--repeats 5] [--size 64M] [--budget 8]
        [--out bench/results/peers.json]

On the newer scenarios (signing: Samba requiring signing with HMAC-SHA256 first, clients requiring
it, half a core; encrypted: the same with encryption, AES-CCM first), run without soho, the goal is
the plan better than TuneD's best in each (`--scenarios signing --out bench/results/peers-signing.json`,
`--scenarios encrypted --out bench/results/peers-encrypted.json`)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import RESULTS, write

WORKLOADS = [("smb", "seq-read"), ("smb", "seq-write"), ("nfs", "seq-read"), ("nfs", "seq-write")]
PROFILES = ("throughput-performance", "network-throughput")
NS = "nt-nas"
NET_KEYS = ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.core.somaxconn", "net.core.rmem_max", "net.core.wmem_max")
GOAL = "plan >= 1.15x TuneD's best profile on soho with p < 0.05; autotune >= the plan"
# a run without soho (the newer scenarios): the plan better than TuneD's best in each, autotune not below it
GOAL_ELSEWHERE = "plan better than TuneD's best profile with p < 0.05 in every scenario; autotune >= the plan"


def plan_won(verdicts: dict[str, dict]) -> bool:
    if "soho" in verdicts:
        won = verdicts["soho"]["plan_over_tuned"]
        return won["ratio"] >= 1.15 and won["p"] < 0.05
    return all(v["plan_over_tuned"]["ratio"] > 1.0 and v["plan_over_tuned"]["p"] < 0.05 for v in verdicts.values())


VM_KEYS = ("vm.dirty_ratio", "vm.dirty_background_ratio", "vm.swappiness")


SAID: list[str] = []  # what each scenario's run found on the way, recorded with the result


def said(line: str) -> None:
    print(line)
    SAID.append(line)


def nastune(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "nastune", *args], text=True, capture_output=True)
    if done.returncode:
        raise SystemExit(f"nastune {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done


def measure(out: Path, label: str, repeats: int, size: str) -> dict[str, list[float]]:
    """Each workload's throughput (MB/s), every repeat."""
    found = {}
    for kind in dict.fromkeys(k for k, _ in WORKLOADS):
        path = out / f"{label}-{kind}.json"
        args = ["bench", "--lab", "--target", kind, "--repeats", str(repeats), "--size", size]
        for k, w in WORKLOADS:
            args += ["-w", w] if k == kind else []
        nastune(*args, "--label", label, "--out", str(path))
        for r in json.loads(path.read_text())["results"]:
            if r.get("error") or not r["metrics"]:
                raise SystemExit(f"{label}: {kind}:{r['workload']} failed: {r.get('error')}")
            found[f"{kind}:{r['workload']}"] = next(iter(r["metrics"].values()))["values"]
    return found


def read_values(devices: list[str]) -> dict[str, str]:
    """The values TuneD's two profiles touch: net.* in the nas's namespace, vm.* and the data
    devices' read-ahead of the shared kernel."""
    values = {}
    for key in NET_KEYS:
        path = "/proc/sys/" + key.replace(".", "/")
        values[key] = subprocess.run(["ip", "netns", "exec", NS, "cat", path], text=True, capture_output=True).stdout
    for key in VM_KEYS:
        values[key] = Path("/proc/sys/" + key.replace(".", "/")).read_text()
    for d in devices:
        values[f"{d} read_ahead_kb"] = Path(f"/sys/block/{d}/queue/read_ahead_kb").read_text()
    return {k: " ".join(v.split()) for k, v in values.items()}


def restore(values: dict[str, str]) -> None:
    """Write back values read by read_values."""
    for k, v in values.items():
        if k.endswith(" read_ahead_kb"):
            Path(f"/sys/block/{k.split()[0]}/queue/read_ahead_kb").write_text(v)
        else:  # net.* in the nas's namespace, vm.* of the shared kernel
            subprocess.run(["ip", "netns", "exec", NS, "sysctl", "-q", "-w", f"{k}={v}"], check=True)
    left = {
        k: v
        for k, v in read_values(sorted({k.split()[0] for k in values if k.endswith("read_ahead_kb")})).items()
        if k in values and v != values[k]
    }
    if left:
        raise SystemExit(f"could not restore what TuneD left: {left}")


def data_devices() -> list[str]:
    """The lab's data device and its log device, if any (loop devices)."""
    state = json.loads(Path(os.environ.get("NASTUNE_LAB_DIR", "/var/lib/nastune/lab"), "state.json").read_text())
    storage = state["storage"]
    return [d.rsplit("/", 1)[-1] for d in (storage["device"], storage.get("log_device")) if d]


class TuneD:
    """Debian's TuneD daemon in the foreground in the nas's namespace, with one profile."""

    def __init__(self, profile: str, work: Path):
        self.profile, self.log = profile, work / f"tuned-{profile}.log"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> TuneD:
        argv = ["ip", "netns", "exec", NS, "tuned", "--no-dbus", "--no-socket", "--profile", self.profile]
        argv += ["--log", str(self.log), "--pid", str(self.log.with_suffix(".pid"))]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 90
        while "applied" not in self.text() or f"'{self.profile}'" not in self.text():
            if self.proc.poll() is not None:
                raise SystemExit(f"tuned {self.profile} exited ({self.proc.returncode}):\n{self.text()[-2000:]}")
            if time.monotonic() > deadline:
                self.__exit__()
                raise SystemExit(f"tuned {self.profile}: not applied after 90 s:\n{self.text()[-2000:]}")
            time.sleep(0.5)
        return self

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def complaints(self) -> list[str]:
        """What TuneD said it could not do (its log's warnings and errors)."""
        said = [line for line in self.text().splitlines() if " WARNING " in line or " ERROR " in line]
        return list(dict.fromkeys(line.split(": ", 1)[-1] for line in said))  # after "date LEVEL module: "

    def __exit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def ensure_tuned() -> str:
    if shutil.which("tuned") is None:
        guard = Path("/usr/sbin/policy-rc.d")  # Debian must not start the system's tuned service
        made = not guard.exists()
        if made:
            guard.write_text("#!/bin/sh\nexit 101\n")
            guard.chmod(0o755)
        try:
            env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "tuned"], check=True, env=env)
        finally:
            if made:
                guard.unlink()
    return subprocess.run(["tuned", "--version"], text=True, capture_output=True).stdout.strip()


def with_plan(plan: Path, out: Path, label: str, repeats: int, size: str) -> dict[str, list[float]]:
    nastune("apply", str(plan), "--lab", "--yes")
    try:
        return measure(out, label, repeats, size)
    finally:
        nastune("rollback", "--lab")


def rule_plan(out: Path) -> Path:
    """nastune's rule-based plan as optimize applies it on the lab: without durability trades
    and machine-wide sysctls."""
    from nastune.jobs.offer import choose
    from nastune.tune.plan import Plan

    whole = out / "rule-plan-all.json"
    nastune("plan", "--lab", "--out", str(whole))
    kept, _ = choose(Plan.model_validate_json(whole.read_text()), shared_kernel=True, accept_risk=frozenset())
    path = out / "rule-plan.json"
    path.write_text(kept.to_json() + "\n")
    return path


def scenario(name: str, args, work: Path) -> dict[str, dict[str, list[float]]]:
    out = work / name
    out.mkdir()
    print(f"== {name}")
    auto = out / "autotune"
    started = time.monotonic()
    spec = [f"{k}:{w}" for k, w in WORKLOADS]
    nastune(
        "autotune", "--yes", "--lab", "--scenario", name, *[a for s in spec for a in ("-w", s)],
        "--budget", str(args.budget), "--repeats", str(args.repeats), "--size", args.size, "--out", str(auto),
    )  # fmt: skip
    summary = json.loads((auto / "autotune.json").read_text())
    said(f"{name}: autotune ({time.monotonic() - started:.0f} s): {summary['verdict']}")
    devices = data_devices()
    rows = {"defaults": measure(out, "defaults", args.repeats, args.size)}
    before = read_values(devices)
    for profile in PROFILES:
        with TuneD(profile, out) as tuned:
            during = read_values(devices)
            rows[f"TuneD {profile}"] = measure(out, profile, args.repeats, args.size)
        after = read_values(devices)
        moved = {k: f"{before[k]} -> {during[k]}" for k in before if during[k] != before[k]}
        said(f"{name}: TuneD {profile} set: " + ("; ".join(f"{k} {v}" for k, v in moved.items()) or "nothing we read"))
        for line in tuned.complaints():
            said(f"  TuneD could not: {line}")
        stuck = [k for k in before if after[k] != before[k]]
        if stuck:
            restore({k: before[k] for k in stuck})
            said(f"  TuneD left changed when it stopped (restored by this script): {', '.join(stuck)}")
    rows["nastune plan"] = with_plan(rule_plan(out), out, "plan", args.repeats, args.size)
    if summary["plan"]:
        rows["nastune autotune"] = with_plan(Path(summary["plan"]), out, "autotune", args.repeats, args.size)
    else:
        said(f"{name}: autotune found nothing better than the defaults: its row is the defaults'")
        rows["nastune autotune"] = rows["defaults"]
    nastune("lab", "down")
    return rows


def show(name: str, rows: dict[str, dict[str, list[float]]], printed: list[str]) -> dict[str, float]:
    medians = {label: {k: statistics.median(v) for k, v in found.items()} for label, found in rows.items()}
    base = medians["defaults"]
    keys = list(base)
    printed.append(
        f"{name}: throughput as a ratio to the defaults ({', '.join(f'{k} {base[k]:.0f} MB/s' for k in keys)})"
    )
    printed.append(f"{'':36}" + "".join(f"{k:>16}" for k in keys) + f"{'geo. mean':>12}")
    means = {}
    for label, found in medians.items():
        ratios = [found[k] / base[k] for k in keys]
        means[label] = statistics.geometric_mean(ratios)
        printed.append(f"{label:36}" + "".join(f"{r:15.2f}x" for r in ratios) + f"{means[label]:11.2f}x")
    return means


def beats(a: dict[str, list[float]], b: dict[str, list[float]], seed: int = 0, draws: int = 20_000) -> dict:
    """How much `b` beats `a` over the workloads: the geometric mean of the median ratios b/a,
    its 95% bootstrap interval and the one-sided permutation p that b is no better."""
    import numpy as np

    rng = np.random.default_rng(seed)
    keys = list(a)

    def ratio(xs: list, ys: list) -> float:
        return float(np.exp(np.mean([np.log(np.median(y) / np.median(x)) for x, y in zip(xs, ys)])))

    seen = ratio([a[k] for k in keys], [b[k] for k in keys])
    boot = [
        ratio([rng.choice(a[k], len(a[k])) for k in keys], [rng.choice(b[k], len(b[k])) for k in keys])
        for _ in range(draws // 4)
    ]
    at_least = 0
    for _ in range(draws):
        xs, ys = [], []
        for k in keys:
            pooled = rng.permutation(a[k] + b[k])
            xs.append(pooled[: len(a[k])])
            ys.append(pooled[len(a[k]) :])
        at_least += ratio(xs, ys) >= seen
    low, high = np.percentile(boot, [2.5, 97.5])
    return {
        "ratio": round(seen, 3),
        "ci": [round(float(low), 3), round(float(high), 3)],
        "p": (at_least + 1) / (draws + 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenarios", default="soho,modern")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--size", default="64M")
    parser.add_argument("--budget", type=int, default=8)
    parser.add_argument("--out", type=Path, default=RESULTS / "peers.json")
    args = parser.parse_args()
    print(f"TuneD: {ensure_tuned()}")
    saved = Path(tempfile.mkdtemp(prefix="nastune-tuned-etc-"))
    shutil.copytree("/etc/tuned", saved / "tuned", symlinks=True)  # TuneD records its active profile there
    results = {}
    try:
        with tempfile.TemporaryDirectory(prefix="nastune-peers-") as tmp:
            for name in args.scenarios.split(","):
                results[name] = scenario(name, args, Path(tmp))
    finally:
        shutil.rmtree("/etc/tuned")
        shutil.copytree(saved / "tuned", "/etc/tuned", symlinks=True)
        shutil.rmtree(saved)
    printed = [f"{args.repeats} repeats of {args.size} per workload; autotune budget {args.budget}"]
    verdicts: dict[str, dict] = {}
    for name, rows in results.items():
        means = show(name, rows, printed)
        best = max(PROFILES, key=lambda p: means[f"TuneD {p}"])
        won = beats(rows[f"TuneD {best}"], rows["nastune plan"])
        again = beats(rows["nastune plan"], rows["nastune autotune"])
        verdicts[name] = {"tuned_best": best, "plan_over_tuned": won, "autotune_over_plan": again}
        printed.append(
            f"  nastune plan / TuneD's best ({best}): {won['ratio']:.2f}x ({won['ci'][0]:.2f}-{won['ci'][1]:.2f}x), "
            f"p = {won['p']:.4f}{' (goal on soho: >= 1.15x, p < 0.05)' if name == 'soho' else ''}; "
            f"autotune / plan: {again['ratio']:.2f}x ({again['ci'][0]:.2f}-{again['ci'][1]:.2f}x) (goal: >= 1.00x)"
        )
    # autotune "at least as good": not measured below the plan, its interval reaching 1.00x
    kept = all(v["autotune_over_plan"]["ci"][1] >= 1.0 for v in verdicts.values())
    met = plan_won(verdicts) and kept
    printed.append(f"autotune not below the plan in every scenario: {'yes' if kept else 'no'}")
    printed.append(f"peers goal: {'met' if met else 'NOT met'}")
    print("\n" + "\n".join(printed))
    result = {"met": met, "verdicts": verdicts, "printed": printed, "said": SAID}
    write("peers", args.out, goal=GOAL if "soho" in verdicts else GOAL_ELSEWHERE, result=result, rows=results)


if __name__ == "__main__":
    main()
