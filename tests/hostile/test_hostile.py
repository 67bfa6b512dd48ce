"""The hostile-input corpus through the real command line: every case ends in a clear error or
is accepted; never a traceback, never a hang, never a read or write outside the given root."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nastune.cli import app
from nastune.lab import scenario as scenarios
from tests.hostile.corpus import PYTHON, TOKEN, all_cases, scenario_cases

# A hang is found by how much work a case does, not by how long the machine took: the largest
# inputs use a few seconds of CPU, and a busy machine stretches the wall clock, not the CPU time
# (ITIMER_PROF counts this process's CPU). A case blocked on a read uses no CPU: the wall-clock
# limit, far above any busy machine's answer, finds that one.
CPU_SECONDS = 30
WALL_SECONDS = 600


class Hang(Exception):
    pass


@contextmanager
def _budget(cpu: float = CPU_SECONDS, wall: int = WALL_SECONDS) -> Iterator[None]:
    """Hang raised inside the block once it has used `cpu` seconds of CPU or `wall` seconds."""

    def hang(signum, frame):
        raise Hang(f"more than {cpu} s of CPU" if signum == signal.SIGPROF else f"blocked for {wall} s")

    previous = {s: signal.signal(s, hang) for s in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, cpu)
    signal.alarm(wall)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        for s, handler in previous.items():
            signal.signal(s, handler)


def test_a_case_that_spins_or_blocks_is_caught_as_a_hang():
    with pytest.raises(Hang, match="CPU"), _budget(cpu=0.2, wall=30):
        while True:
            pass
    reader, writer = os.pipe()
    with pytest.raises(Hang, match="blocked"), _budget(cpu=30, wall=1):
        os.read(reader, 1)
    os.close(reader)
    os.close(writer)


def _outside(directory: Path) -> None:
    directory.mkdir()
    (directory / "secret.json").write_text(f'{{"argv": ["x"], "stdout": "{TOKEN}", "returncode": 0}}')
    (directory / "kernel-value").write_text("20\n")
    os.mkfifo(directory / "fifo")


def _state(directory: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "fifo"
        for p in sorted(directory.parent.glob("*"))
        if p.name not in ("work", "bases")
        for p in ([p] if p.is_file() else sorted(p.iterdir()) if p.is_dir() and p.name == "outside" else [p])
    }


@pytest.mark.parametrize("case", all_cases(), ids=lambda c: c.name)
def test_hostile_input(case, tmp_path_factory):
    top = tmp_path_factory.mktemp("hostile")
    outside, work = top / "outside", top / "work"
    _outside(outside)
    work.mkdir()
    args = case.build(work, outside)
    before = _state(outside)
    try:
        with _budget():
            got = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    finally:
        subprocess.run(["chattr", "-R", "-i", str(work)], capture_output=True)  # an immutable case's flag
    output = got.output
    assert not isinstance(got.exception, Hang), f"hang ({got.exception}): nastune {' '.join(args)}"
    assert got.exception is None or isinstance(got.exception, SystemExit), (
        f"traceback: {type(got.exception).__name__}: {got.exception}"
    )
    assert got.exit_code != 70, f"internal error on input at fault: {output[-1000:]}"  # the input's fault, not a bug
    assert "Traceback" not in output, output[-2000:]
    assert "Aborted" not in output, output[-2000:]
    assert not [words for words in PYTHON if words in output], output[-2000:]  # messages in an operator's words
    assert TOKEN not in output, "read outside the root"
    assert _state(outside) == before, "wrote outside the root"
    assert not (top / "escape").exists()
    if got.exit_code not in (0, 1):  # a refusal: it must say what was wrong, and where
        assert "error:" in output, output[-1000:]
        if case.names:
            assert case.names in " ".join(output.split()).replace(" ", "") or case.names in output, output[-1000:]


@pytest.mark.parametrize("name,text", scenario_cases().items(), ids=list(scenario_cases()))
def test_hostile_scenario_files_are_refused_naming_the_file_and_field(tmp_path, name, text):
    path = tmp_path / f"{name}.toml"
    if text is None:
        path.write_bytes(b'name = "\xff"\n')
    else:
        path.write_text('name = "hostile"\n' + text)
    with pytest.raises(ValueError) as refused:
        scenarios.load(str(path))
    assert str(path) in str(refused.value)
    try:
        tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError):
        return  # not TOML at all: the error still names the file
    if name not in ("deep",):
        assert "field" in str(refused.value), refused.value
