"""What a workload is asked to do, and bench's defaults for it."""

from __future__ import annotations

from typing_extensions import TypedDict

from nastune.bench import counts  # pydantic validates it (results), which needs this one before Python 3.12

KiB, MiB = 1 << 10, 1 << 20


class Params(TypedDict, total=False):
    """What a workload is asked to do; without a size, jobs size transfers by the link (sizing.sized)."""

    size: int  # bytes of each transfer
    file_sizes: list[int]  # the IOzone matrix's files
    record_sizes: list[int]  # and its records
    files: int  # small files per repeat
    dir_files: int  # the files of big-dir's directory
    seconds: int  # iperf3's and the latency probe's time
    iperf_bytes: int  # iperf3's bytes each way instead of its time (sized by the link, as a transfer is)
    buffer_mib: int  # the NUMA bandwidth probe's buffer
    sustained_bytes: int  # a sustained write's bytes: past the NAS's write-back cache


DEFAULTS: Params = {
    "file_sizes": [64 * KiB, MiB, 16 * MiB],
    "record_sizes": [4 * KiB, 64 * KiB, MiB],
    "files": counts.FILES,
    "dir_files": counts.DIR_FILES,
    "seconds": 3,
    "buffer_mib": 256,
    "sustained_bytes": 2 << 30,
}


def with_size(size: int | None) -> Params:
    """The defaults with a transfer size, or without one for the jobs to size by the link."""
    return {**DEFAULTS} if size is None else {**DEFAULTS, "size": size}
