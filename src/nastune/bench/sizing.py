"""Transfer sizes chosen from what they measure: one sequential transfer lasts about half a second
at the link's goodput, long enough for TCP and the server to reach steady state and for a
client's fixed cost per transfer to stay a small part of it, and no longer. Measured in the lab
(smbclient `get` over the 1 Gbit/s link, from the server's cache): about 30 ms of every transfer
is connecting and authenticating, so 64 MiB read at 110.4 MB/s, 128 MiB at 114.4 and 256 MiB at
116.3; half a second's worth (64 MiB) costs 3.5% of the rate, the same on both sides of a
comparison, and a quarter of the time of 256 MiB. iperf3 moves as many bytes each way (its own
time counts whole seconds). Noise is left to the statistics: a noisy metric takes more
interleaved pairs, not longer transfers."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from nastune.bench.params import Params
from nastune.bench.targets import Target

MiB = 1 << 20
SECONDS = 0.5  # of transfer at the link's goodput
SMALLEST, LARGEST = 32 * MiB, 4 << 30
FALLBACK = 1 << 30  # a local path: long enough for a disk's own caches not to decide


def transfer_size(targets: Iterable[Target]) -> int | None:
    """The power of two of MiB nearest half a second at the fastest link's goodput among `targets`;
    None when no target crosses a link of known speed (a local path: the caller's default)."""
    limits = [t.limit_bytes for t in targets if t.limit_bytes]
    if not limits:
        return None
    mib = max(limits) * SECONDS / MiB
    return min(LARGEST, max(SMALLEST, MiB << round(math.log2(mib))))


def sized(params: Params, targets: list[Target], log: Callable[[str], None]) -> Params:
    """`params` with a size (none given: chosen from the targets' links, else bench's default),
    said in `log`; auto also gives iperf3 that many bytes each way instead of three seconds."""
    if "size" in params:
        return params
    size = transfer_size(targets)
    if size is None:
        log(f"transfers: {FALLBACK // MiB} MiB each (no link of known speed to size them by)")
        return {**params, "size": FALLBACK}
    fastest = max(t.limit_bytes or 0 for t in targets)
    log(f"transfers: {size // MiB} MiB each, {size / fastest:.1f} s at the link's goodput of {fastest / 1e6:.1f} MB/s")
    return {**params, "size": size, "iperf_bytes": size}
