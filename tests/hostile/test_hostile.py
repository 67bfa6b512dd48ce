"""The hostile-input corpus through the real command line: every case ends in a clear error or
is accepted; never a traceback, never a hang, never a read or write outside the given root."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nastune.cli import app
from nastune.lab import scenario as scenarios
from tests.hostile.corpus import TOKEN, all_cases, scenario_cases

SECONDS = 60  # a case that takes longer is a hang (the largest inputs take a few seconds)


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang(f"no answer within {SECONDS} s")


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
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(SECONDS)
    try:
        got = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        subprocess.run(["chattr", "-R", "-i", str(work)], capture_output=True)  # an immutable case's flag
    output = got.output
    assert not isinstance(got.exception, Hang), f"hang: nastune {' '.join(args)}"
    assert got.exception is None or isinstance(got.exception, SystemExit), (
        f"traceback: {type(got.exception).__name__}: {got.exception}"
    )
    assert "Traceback" not in output and "Aborted" not in output, output[-2000:]
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
