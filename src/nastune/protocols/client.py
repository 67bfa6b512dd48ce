"""Running a driver's tool: argv lists, a clear error naming the tool, the client host and
its output; and timing a transfer where it ran, so that neither SSH nor a namespace switch is
part of the measured time."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from nastune import commands
from nastune.conf import safe
from nastune.errors import Failure
from nastune.ssh import UNREACHABLE, Ssh, unreachable_reason

if TYPE_CHECKING:
    from nastune.login import Login


class Target(Protocol):
    """What a protocol's client operations read of where they measure (bench.targets.Target is
    one): named here, so the protocols depend on no bench."""

    @property
    def host(self) -> str | None: ...
    @property
    def share(self) -> str | None: ...
    @property
    def login(self) -> Login | None: ...
    @property
    def protection(self) -> str | None: ...
    @property
    def ssh(self) -> Ssh | None: ...
    @property
    def client_name(self) -> str | None: ...
    @property
    def starts_at(self) -> float | None: ...
    @property
    def on(self) -> str: ...
    def client(self, argv: list[str]) -> list[str]: ...


def located(target: Target) -> tuple[str, str]:
    """The host and share of a protocol's target: its URL names both (bench.targets checks it)."""
    if not target.host or not target.share:
        raise BenchError(f"{target.on}: names no host or share")
    return target.host, target.share


SPAN = "nastune-span"
MAX_WAIT_US = 5_000_000  # a start time further ahead than this is clock skew: start at once
# bash's clock around the tool, on the client: EPOCHREALTIME is bash's own (>= 5.0), so the
# client needs nothing but bash; the span goes to stderr after the tool's own output. $1 is
# a start time in epoch microseconds (0: now), for clients that start together.
WAIT = (
    "at=$1; shift; d=$((at - ${EPOCHREALTIME/./}));"
    f" if [ $at -gt 0 ] && [ $d -gt 0 ] && [ $d -lt {MAX_WAIT_US} ];"
    ' then sleep "$((d / 1000000)).$(printf %06d $((d % 1000000)))"; fi;'
)
TIMED = WAIT + f' s=$EPOCHREALTIME; "$@"; rc=$?; echo "{SPAN} $s $EPOCHREALTIME" >&2; exit $rc'
SENT = "nastune-sent"
# TIMED with the client's sent bytes read once a second beside the tool (a tool such as smbclient
# or nfs-cp tells only its mean rate): the sum of /proc/net/dev's transmitted bytes over every
# interface but lo, which is this client's own network namespace's, read by bash itself
SENDING = (
    'sent() { t=0; while IFS=: read -r dev data; do [ "${dev// /}" = lo ] && continue; set -- $data;'
    f' [ $# -ge 9 ] && t=$((t + $9)); done </proc/net/dev; echo "{SENT} $EPOCHREALTIME $t" >&2; }};'
    + WAIT
    + " (while :; do sent; sleep 1; done) & p=$!;"
    + f' s=$EPOCHREALTIME; "$@"; rc=$?; kill $p; wait $p 2>/dev/null; sent; echo "{SPAN} $s $EPOCHREALTIME" >&2;'
    + " exit $rc"
)


class BenchError(Failure):
    """A client tool failed; the message names the tool, the target and its output."""

    code = 1


class Final(BenchError):
    """A failure that trying again cannot help (a workload's other failures, a reset connection
    or a restarting server, are tried again)."""


class NotThere(Final):
    """The file a tool was to read is not on the server."""


class Refused(Final):
    """The server refused the client's login: a wrong user or password, or a share that needs
    one (the message names the share and the client, never the password)."""


def client_name(name: str, what: str) -> str:
    """A file or share name checked for the client tools' own syntax (see safe.REMOTE_NAME)."""
    try:
        return safe.remote_name(name, what)
    except ValueError as e:
        raise BenchError(str(e)) from None


def run(argv: list[str], timeout: float = 3600, what: str = "", input: str | None = None) -> tuple[str, float]:
    """stdout and wall seconds of a command that must succeed."""
    start = time.perf_counter()
    result = commands.run(argv, timeout, input)
    elapsed = time.perf_counter() - start
    if result.error:
        raise BenchError(f"{what or argv[0]}: {result.error}")
    if result.returncode != 0:
        raise BenchError(f"{what or ' '.join(argv[:4])} failed (exit {result.returncode}): {result.tail(3)}")
    return result.stdout, elapsed


@dataclass(frozen=True)
class Words:
    """A client tool's words in its output for a file that is not there, and for a refused login
    (with the inventory variables that set that login, for the message)."""

    not_found: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()
    login_vars: str = ""

    def failure(self, result: commands.CommandResult, message: str) -> BenchError:
        said = lambda words: any(w in result.stdout or w in result.stderr for w in words)
        if said(self.refused):
            return Refused(f"{message} (the login was refused: check {self.login_vars})")
        return NotThere(message) if said(self.not_found) else BenchError(message)


@dataclass(frozen=True)
class Call:
    """A client tool's argument vector and its standard input (a login: never an argument)."""

    argv: list[str]
    input: str | None = None


def on_client(
    target: Target,
    argv: list[str],
    what: str,
    timeout: float = 3600,
    input: str | None = None,
    words: Words = Words(),
) -> commands.CommandResult:
    """Run a client tool where the target's client is; BenchError naming the tool and the host,
    NotThere or Refused when its output holds one of the tool's `words` for those."""

    result = commands.run(target.client(argv), timeout, input)
    if target.ssh and result.returncode == UNREACHABLE:
        raise BenchError(f"{what}{target.on}: client {target.client_name} {unreachable_reason(result)}")
    if result.error:
        raise BenchError(f"{what}{target.on}: {result.error}")
    if result.returncode != 0:
        raise words.failure(result, f"{what}{target.on} failed (exit {result.returncode}): {result.tail(3)}")
    return result


def script(target: Target, program: Path, request: dict, what: str) -> dict:
    """Run a driver that imports only the standard library (`program`, its own `__main__` reads
    the request) on the target's client as `python3 - JSON`: a client needs python3, not
    nastune. Its JSON answer."""
    result = on_client(target, ["python3", "-", json.dumps(request)], what, input=program.read_text())
    return json.loads(result.stdout)


# the client's empty files for a big directory: python3 is on every client (the drivers need it)
EMPTY_FILES = (
    "import pathlib, sys; d = pathlib.Path(sys.argv[1]); d.mkdir(parents=True); "
    "[(d / f'f-{i}').touch() for i in range(int(sys.argv[2]))]"
)


@contextmanager
def empty_files(target: Target, name: str, count: int, what: str) -> Iterator[str]:
    """A directory of `count` empty files (f-0, f-1, ...) on the target's client, removed after:
    a client tool sends them in one session."""
    local = f"/var/tmp/{client_name(name, what)}"
    on_client(target, ["python3", "-c", EMPTY_FILES, local, str(count)], "python3")
    try:
        yield local
    finally:
        on_client(target, ["rm", "-rf", "--", local], "rm")


BARE = 4  # bare sessions timed per repeat: under load, the fastest of two was at times slower than a listing


def less_bare_sessions(
    bare: Callable[[], float], listing: Callable[[], float], lookups: Callable[[], float], count: int, what: str
) -> dict[str, float]:
    """A listing's microseconds and one missing name's (of `count` looked up), from timed client
    sessions less the fastest of BARE bare ones (login, entering the directory): jitter only adds
    to a session, so the fastest is the closest to its fixed cost. A difference lost in a session's
    jitter is a failed repeat, tried again, never a zero."""
    base = min(bare() for _ in range(BARE))
    listed, missed = listing() - base, lookups() - base
    if listed <= 0 or missed <= 0:
        raise BenchError(f"{what}: the listing or the lookups took no longer than a bare session")
    return {"list_us": listed * 1e6, "miss_us": missed * 1e6 / count}


def timed(
    target: Target,
    argv: list[str],
    what: str,
    timeout: float = 3600,
    failed: Callable[[commands.CommandResult], str | None] | None = None,
    words: Words = Words(),
    input: str | None = None,
    sent: list[tuple[float, int]] | None = None,
) -> tuple[float, float]:
    """Start and end (epoch seconds, the client's clock) of a tool run on the target's client.
    `failed` reads the output of a tool that can exit 0 after a failed transfer: why it failed;
    `words` name a file that is not there (NotThere) and a refused login (Refused); `input`
    is the tool's standard input (a login, which never goes on a command line). `sent` gets the
    client's sent bytes once a second while the tool ran, each with its time."""
    at = target.starts_at  # clients that start together wait on their own clocks for this moment
    at_us = str(int(at * 1e6)) if at else "0"
    script = TIMED if sent is None else SENDING
    result = on_client(target, ["bash", "-c", script, "nastune", at_us, *argv], what, timeout, input, words)
    why = failed(result) if failed else None
    if why:
        raise words.failure(result, f"{what}{target.on}: {why}")
    if sent is not None:
        sent.extend(sent_bytes(result.stderr))
    for line in reversed(result.stderr.splitlines()):
        if line.startswith(SPAN + " "):
            _, start, end = line.split()
            return float(start), float(end)
    raise BenchError(f"{what}{target.on}: no timing from the client's bash (bash 5 or later is needed)")


def sent_bytes(stderr: str) -> list[tuple[float, int]]:
    """The (epoch seconds, bytes sent so far) samples SENDING wrote among a tool's own output."""
    found = []
    for line in stderr.splitlines():
        words = line.split()
        if len(words) == 3 and words[0] == SENT and words[2].isdigit():
            found.append((float(words[1]), int(words[2])))
    return found
