"""The server's profile when the NAS is another host: `nastune sample` streams the same /proc
samples, one JSON line each, and the coordinator summarizes them as it does its own."""

from __future__ import annotations

import sys
import time

from nastune.bench.profile import SAMPLE_TAKES, Profiler, RemoteProfiler
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


def test_a_window_brackets_its_run_with_the_samples_on_either_side():
    """One profiler serves several runs (an interleaved side): each run's window starts with the
    sample taken before it began, holds the run's own, and ends with one taken after it ended,
    waited for (on a busy machine the sampler may be late)."""
    profiler = RemoteProfiler(argv=[sys.executable, "-m", "nastune", "sample", "--interval", "0.1"], interval=0.1)
    with profiler:
        deadline = time.monotonic() + 60
        while len(profiler.samples) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        first = len(profiler.samples)
        before = profiler.samples[-1]
        while len(profiler.samples) < first + 2 and time.monotonic() < deadline:
            time.sleep(0.05)  # the run: two samples long, however busy the machine is
        taken, called = len(profiler.samples), time.monotonic()
        window = profiler.window(first)
        waited = time.monotonic() - called
    assert window[0] is before
    assert window[1:3] == profiler.samples[first : first + 2]  # the run's own
    assert len(window) >= taken - first + 2 or waited >= 3 * 0.1 + SAMPLE_TAKES  # one more, or waited in vain


class Slow(Profiler):
    """A profiler whose every sample takes longer than three of its intervals, as on a NAS busy
    enough that `ss` and the reads of /proc lag."""

    def _sample(self) -> Sample:
        time.sleep(0.3)
        return super()._sample()


def test_a_short_run_is_profiled_even_when_a_sample_takes_longer_than_three_intervals():
    profiler = Slow(interval=0.01)
    with profiler:
        first = len(profiler.samples)  # the run ends at once, before the sampler's next sample
        window = profiler.window(first)
    assert len(window) >= 2  # the one before it and one after it: a profile, not nothing
