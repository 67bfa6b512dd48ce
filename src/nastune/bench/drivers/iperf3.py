"""iperf3 between a client and the server, from its JSON output; and the server itself, a
one-off that a Site starts where the NAS is (over the NAS's SSH, or in the lab's namespace) for
each test and that is gone after it: nothing is left listening on the NAS."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext

from nastune import commands
from nastune.bench.targets import Target
from nastune.packages import install_hint
from nastune.protocols.client import BenchError, run

PORT = 5201  # iperf3's own default
READY = b"Server listening on"
NOT_FOUND = 127  # `timeout`'s status when it cannot find the program


def throughput(target: Target, seconds: int = 3, reverse: bool = False, size: int | None = None) -> dict[str, float]:
    """One way's rate for `seconds`, or for `size` bytes (as long as a file transfer takes: iperf3
    counts time in whole seconds); bounded by 30 s more, or by the time at 1 MB/s."""
    port = int(target.extra.get("port", PORT))
    amount = ["-n", str(size)] if size else ["-t", str(seconds)]
    argv = ["iperf3", "-c", str(target.host), "-p", str(port), *amount, "-J"] + (["-R"] if reverse else [])
    bound = 30 + (size / 1e6 if size else seconds)
    with target.serve(bound) if target.serve else nullcontext():
        out, _ = run(target.client(argv), timeout=bound, what="iperf3")
    data = json.loads(out)
    if "error" in data:
        raise BenchError(f"iperf3: {data['error']}")
    end = data["end"]
    return {
        "MB/s": end["sum_received"]["bytes"] / end["sum_received"]["seconds"] / 1e6,
        "retransmits": float(end["sum_sent"].get("retransmits", 0)),
    }


@contextmanager
def one_off(
    there: Callable[[list[str]], list[str]], address: str, port: int, seconds: float, on: str
) -> Iterator[None]:
    """An iperf3 server at `address`:`port` for one test, started through `there` (the argv that
    runs a command where the NAS is) and bounded to `seconds` there by `timeout`, so that even a
    lost connection leaves nothing running; ready once it says it listens. BenchError names `on`
    (the NAS) and iperf3's own words when it cannot serve."""
    server = ["timeout", str(int(seconds)), "iperf3", "-s", "-1", "-B", address, "-p", str(port), "--forceflush"]
    proc = commands.start(there(server), stdout=subprocess.PIPE, errors=True, text=False)
    try:
        _listening(proc, on)
        yield
    finally:
        try:
            proc.wait(10)  # it ends by itself after its one test
        except subprocess.TimeoutExpired:
            commands.stop(proc)


def _listening(proc: subprocess.Popen, on: str, wait: float = 20) -> None:
    """Until the server says it listens; BenchError with what it said when it exits or stays mute."""
    out = proc.stdout
    assert out is not None  # started with a pipe
    said = b""
    deadline = time.monotonic() + wait
    while READY not in said and time.monotonic() < deadline:
        ready, _, _ = select.select([out], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(out.fileno(), 4096) if ready else b""
        if not chunk and (not ready or proc.poll() is not None):
            break
        said += chunk
    if READY in said:
        return
    code = proc.wait(5) if proc.poll() is None and not said else proc.poll()
    if code == NOT_FOUND:
        raise BenchError(f"iperf3 is not installed on {on} ({install_hint('iperf3')})")
    words = [w.strip() for w in said.decode(errors="replace").splitlines() if w.strip().strip("-")]
    why = " | ".join(words)[-300:] or (f"exit {code}" if code is not None else f"not ready in {wait:g} s")
    raise BenchError(f"the iperf3 server on {on} did not start: {why}")
