"""fio for path targets (local file systems or mounted shares): one job file per run, every
job in sequence (stonewall), direct I/O so the page cache is not what is measured; the JSON
output is parsed, never the text. A path on a client host is measured through fio's own
client/server mode: the job file goes to that client's `fio --server`, and the client's
results come back in `client_stats`."""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from nastune.bench.targets import Target
from nastune.protocols.client import BenchError, on_client, run

SCRATCH = ".nastune-bench"


def scratch(target: Target) -> Path:
    """The directory a path workload works in (nastune's own, removed afterwards)."""
    return Path(target.share or "/") / SCRATCH


def elsewhere(target: Target) -> bool:
    """Whether a path target's path is on a client (its mount of a share), not here."""
    return bool(target.extra.get("fio_server") or target.ssh)


@dataclass
class Job:
    name: str
    rw: str  # write, read, randread, randwrite
    bs: int
    size: int
    extra: dict[str, str] | None = None
    file: str | None = None  # jobs naming the same file rewrite or reread it


def job_file(directory: Path, jobs: list[Job], direct: bool = True) -> str:
    lines = [
        "[global]",
        f"directory={directory}",
        "ioengine=psync",
        f"direct={int(direct)}",
        "group_reporting=0",
        "stonewall",
        "invalidate=1",
        "unlink=0",
        "",
    ]
    for j in jobs:
        lines += [f"[{j.name}]", f"rw={j.rw}", f"bs={j.bs}", f"size={j.size}", f"filename={j.file or j.name}.fio"]
        lines += [f"{k}={v}" for k, v in (j.extra or {}).items()] + [""]
    return "\n".join(lines)


def _output(target: Target, jobs: list[Job], direct: bool, options: tuple[str, ...] = ()) -> str:
    """fio's JSON output for `jobs` at `target`: here, through a client's fio server, or over SSH."""
    directory = scratch(target)
    server = target.extra.get("fio_server")
    text = job_file(directory, jobs, direct)
    if elsewhere(target):
        on_client(target, ["mkdir", "-p", "--", str(directory)], "mkdir")
    if not server and target.ssh:  # no fio server there: fio over SSH, its job file on standard input
        return on_client(target, ["fio", "--output-format=json", *options, "-"], "fio", input=text).stdout
    return _local(server, directory, text, target.on, options)


def run_jobs(target: Target, jobs: list[Job], direct: bool = True) -> dict[str, dict]:
    """Per job: MB/s, mean and percentile completion latency (us), for its read or write side."""
    out = _output(target, jobs, direct)
    try:
        data = json.loads(out[out.index("{") :])
    except ValueError as e:
        raise BenchError(f"fio{target.on}: unreadable JSON output ({e})") from e
    results = {}
    for job in data.get("jobs") or data.get("client_stats", []):
        side = job["write"] if job["write"]["io_bytes"] else job["read"]
        clat = side.get("clat_ns", {})
        pct = clat.get("percentile", {})
        sync = job.get("sync", {}).get("lat_ns", {})
        results[job["jobname"]] = {
            "MB/s": side["bw_bytes"] / 1e6,
            "lat_us_mean": clat.get("mean", 0) / 1e3,
            "lat_us_p50": pct.get("50.000000", 0) / 1e3,
            "lat_us_p99": pct.get("99.000000", 0) / 1e3,
            "sync_us_p50": sync.get("percentile", {}).get("50.000000", 0) / 1e3,
            "sync_us_p99": sync.get("percentile", {}).get("99.000000", 0) / 1e3,
            "iops": side["iops"],
        }
    return results


def course(target: Target, job: Job) -> list[float]:
    """A buffered write's MB/s each second, from the status fio prints every second (a JSON
    object each, its bytes so far and its time in ms): what a mean rate hides, the write-back
    cache filling and the writer held to the disks."""
    out = _output(target, [job], direct=False, options=("--status-interval=1",))
    decoder, at, points = json.JSONDecoder(), 0, []
    while (start := out.find("{", at)) >= 0:
        try:
            data, at = decoder.raw_decode(out, start)
        except ValueError:
            at = start + 1
            continue
        for one in data.get("jobs") or data.get("client_stats", []):
            points.append((data.get("timestamp_ms", 0), one["write"]["io_bytes"]))
    if len(points) < 2:
        raise BenchError(f"fio{target.on}: fewer than two statuses of the write: no course to read")
    return [
        max(0.0, (b1 - b0) / 1e6 / max((t1 - t0) / 1000, 1e-3)) for (t0, b0), (t1, b1) in pairwise(points) if t1 > t0
    ]


def _local(server: str | None, directory: Path, text: str, on: str, options: tuple[str, ...] = ()) -> str:
    """fio run here: as the client of a fio server, or on this host's own path."""
    if server:
        spec = Path(tempfile.mkstemp(prefix="nastune-", suffix=".fio")[1])
        argv = ["fio", f"--client=ip:{server}", "--output-format=json", *options, str(spec)]
    else:
        directory.mkdir(parents=True, exist_ok=True)
        spec = directory / "nastune.fio"
        argv = ["fio", "--output-format=json", *options, str(spec)]
    spec.write_text(text)
    try:
        return run(argv, what=f"fio{on}")[0]
    finally:
        spec.unlink(missing_ok=True)


def cleanup(target: Target) -> None:
    """Remove the scratch directory the benchmark made (only ever nastune's own)."""
    directory = scratch(target)
    if elsewhere(target):
        on_client(target, ["rm", "-rf", "--", str(directory)], "rm")
    else:
        shutil.rmtree(directory, ignore_errors=True)


def device_read_rate(device: str, seconds: int = 2) -> float:
    """MB/s of a sequential read-only, direct-I/O read of a whole block device: the ceiling of
    any sequential read of a file on it (nothing is written)."""
    out, _ = run(
        [
            "fio",
            "--name=device-rate",
            f"--filename={device}",
            "--readonly",
            "--rw=read",
            "--bs=1M",
            "--direct=1",
            "--ioengine=psync",
            f"--runtime={seconds}",
            "--time_based",
            "--output-format=json",
        ],
        what=f"fio read of {device}",
    )
    return json.loads(out[out.index("{") :])["jobs"][0]["read"]["bw_bytes"] / 1e6
