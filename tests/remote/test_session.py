"""Sessions: nastune kept up on a host (`nastune serve`) runs each command in a fork, with the
same status, output and input as the command on its own; a host whose nastune does not serve
gets one process per command; a session that ends or stops answering is a failed command, and
the next command opens a new one."""

from __future__ import annotations

import json
import sys
import textwrap
import time

import pytest

from nastune import commands
from nastune.remote import session, session_host
from nastune.remote.agent import Agent, NasError
from nastune.remote.inventory import Host

SERVE = [sys.executable, "-m", "nastune", "serve"]


@pytest.fixture(autouse=True)
def fresh():
    yield
    session.close_all()
    session._WITHOUT.clear()


def served(*args: str, input: str | None = None, argv: list[str] = SERVE) -> commands.CommandResult | None:
    return session.run(argv, args, 120, input, ["nastune", *args])


def test_a_command_in_the_session_is_the_command_on_its_own(tmp_path):
    plan = json.dumps({"schema": "nastune.plan/1", "changes": []})
    for args, given in ((["--version"], None), (["apply", "-", "--root", str(tmp_path), "--yes"], plan)):
        alone = commands.run([sys.executable, "-m", "nastune", *args], 120, given)
        inside = served(*args, input=given)
        assert inside is not None
        assert (inside.returncode, inside.stdout, inside.stderr) == (alone.returncode, alone.stdout, alone.stderr)
    assert len(session._OPEN) == 1  # one process served both


def test_a_failing_command_leaves_the_session_to_the_next():
    refused = served("confirm", "--root", "/nonexistent")
    assert refused is not None and refused.returncode == 2 and "/nonexistent" in refused.stderr
    again = served("--version")
    assert again is not None and again.ok and again.stdout.startswith("nastune ")


def test_each_command_starts_from_what_serve_imported_not_from_the_last_command():
    def command(args: list[str]) -> int:
        seen = session_host.PROTOCOL
        session_host.PROTOCOL = int(args[0])  # a module's state changed by one command
        print(seen)
        return 0

    first, second = session_host.forked(command, ["7"], None), session_host.forked(command, ["8"], None)
    assert (first["stdout"], second["stdout"]) == ("1\n", "1\n")
    assert session_host.PROTOCOL == 1


def test_a_command_without_input_reads_nothing_and_a_crash_is_its_traceback():
    def reads(args: list[str]) -> int:
        print(repr(sys.stdin.read()))
        raise RuntimeError("a bug")

    reply = session_host.forked(reads, [], None)
    assert reply["stdout"] == "''\n"
    assert reply["rc"] == session_host.INTERNAL and "RuntimeError: a bug" in reply["stderr"]


def fake(tmp_path, body: str) -> list[str]:
    """A host's nastune whose `serve` does what `body` (Python) says; it counts its starts."""
    script = tmp_path / "fake.py"
    script.write_text(
        "import json, pathlib, sys, time\n"
        f"starts = pathlib.Path({str(tmp_path / 'starts')!r})\n"
        "starts.write_text(starts.read_text() + 'x' if starts.exists() else 'x')\n" + textwrap.dedent(body)
    )
    return [sys.executable, str(script)]


def test_a_nastune_without_serve_gets_a_process_per_command(tmp_path):
    argv = fake(tmp_path, "sys.exit(2)  # click: no such command\n")
    assert served("--version", argv=argv) is None
    assert served("--version", argv=argv) is None
    assert (tmp_path / "starts").read_text() == "x"  # asked once


def test_a_session_that_ends_mid_command_fails_it_and_the_next_opens_another(tmp_path):
    argv = fake(tmp_path, 'print(json.dumps({"serve": 1}), flush=True)\nsys.stdin.readline()\nsys.exit(1)\n')
    ended = served("apply", argv=argv)
    assert ended is not None and ended.error and "ended" in ended.error
    served("apply", argv=argv)
    assert (tmp_path / "starts").read_text() == "xx"


def test_a_session_that_does_not_answer_in_time_is_closed(tmp_path):
    argv = fake(tmp_path, 'print(json.dumps({"serve": 1}), flush=True)\ntime.sleep(600)\n')
    late = session.run(argv, ["apply"], 1, None, ["nastune", "apply"])
    assert late is not None and late.error == "no result after 1 s"
    assert session._OPEN == {}


def test_an_agent_on_this_host_runs_nastune_through_its_session_and_names_failures(tmp_path):
    agent = Agent(Host(name="here", address="127.0.0.1", local=True))
    assert agent.nastune("--version", what="version").startswith("nastune ")
    with pytest.raises(NasError, match=r"confirm on NAS here failed \(exit 2\): .*nonexistent"):
        agent.nastune("confirm", "--root", "/nonexistent", what="confirm")
    assert list(session._OPEN) == [tuple(agent.serving)]


def test_a_session_that_ended_between_commands_is_opened_again(tmp_path):
    body = 'print(json.dumps({"serve": 1}), flush=True)\nsys.stdin.readline()\n'
    body += 'print(json.dumps({"rc": 0, "stdout": "done", "stderr": ""}), flush=True)\n'  # then ends
    argv = fake(tmp_path, body)
    first = served("apply", argv=argv)
    deadline = time.monotonic() + 60
    while session._OPEN and session._OPEN[tuple(argv)].alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    second = served("apply", argv=argv)
    assert first is not None and second is not None and (first.stdout, second.stdout) == ("done", "done")
    assert (tmp_path / "starts").read_text() == "xx"
