"""The server's profile when the NAS is another host: `nastune sample` streams the same /proc
samples, one JSON line each, and the coordinator summarizes them as it does its own."""

from __future__ import annotations

import sys
import time

from nastune.bench.profile import Profiler, RemoteProfiler
from nastune.bench.sample import Sample


def test_a_sample_survives_its_json_line():
    sample = Profiler()._sample()
    again = Sample.from_json(sample.to_json())
    assert again == sample
    assert all(isinstance(k, int) for k in again.irq)


def test_the_streamed_profile_is_summarized_like_a_local_one():
    """The real `nastune sample` in a child process, as ssh runs it on a NAS."""
    profiler = RemoteProfiler(argv=[sys.executable, "-m", "nastune", "sample", "--interval", "0.2"], interval=0.2)
    with profiler:  # until five samples came, however long the child takes to start on a busy machine
        deadline = time.monotonic() + 60
        while len(profiler.samples) < 5 and time.monotonic() < deadline:
            time.sleep(0.2)
    assert len(profiler.samples) >= 5, profiler.samples
    summary = profiler.summary()
    assert summary["seconds"] > 0.5
    assert set(summary["cpus"])
    assert "net" in summary
    assert profiler._proc.poll() is not None  # the sampler ended with the run


def test_a_sampler_that_prints_nothing_usable_gives_no_profile():
    profiler = RemoteProfiler(argv=[sys.executable, "-c", "print('not json')"])
    with profiler:
        pass
    assert profiler.samples == []  # the runner records no profile then, rather than a wrong one
