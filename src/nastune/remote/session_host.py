"""The host's side of a session (`nastune serve`): nastune imported once, then each command the
coordinator sends on standard input run in a fork of this process, with the request's input as
its standard input and its output and exit status sent back. A fork starts from what is
imported and nothing a command did before: no cache or setting of one command reaches the next.

Requests and replies are one JSON line each: {"args": [...], "input": text or null} and
{"rc": status, "stdout": text, "stderr": text}; the first line out says the session is ready."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Sequence
from typing import IO, BinaryIO

PROTOCOL = 1
INTERNAL = 70  # EX_SOFTWARE: the command failed in a way nastune did not report itself


def loop(command: Callable[[list[str]], int], requests: BinaryIO, replies: BinaryIO) -> None:
    """Answer each request of `requests` on `replies` until the coordinator closes the session."""
    _send(replies, {"serve": PROTOCOL})
    for line in requests:
        try:
            request = json.loads(line)
            args, given = [str(a) for a in request["args"]], request.get("input")
        except (ValueError, KeyError, TypeError) as e:
            _send(replies, {"rc": 2, "stdout": "", "stderr": f"error: not a request of nastune serve: {e}\n"})
            continue
        _send(replies, forked(command, args, given))


def _send(replies: BinaryIO, message: dict) -> None:
    replies.write(json.dumps(message).encode() + b"\n")
    replies.flush()


def forked(command: Callable[[list[str]], int], args: list[str], given: str | None) -> dict:
    """`command(args)` in a child process with `given` as its standard input: its status and output."""
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        stdin.write((given or "").encode())
        stdin.seek(0)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(command, args, (stdin, out, err), given is not None)
        _, status = os.waitpid(pid, 0)
        return {"rc": os.waitstatus_to_exitcode(status), "stdout": _text(out), "stderr": _text(err)}


def _text(file: IO[bytes]) -> str:
    file.seek(0)
    return file.read().decode(errors="replace")


def _child(command: Callable[[list[str]], int], args: list[str], files: Sequence[IO[bytes]], has_input: bool) -> None:
    """Run in the fork: the request's files as descriptors 0-2 (no input: /dev/null, as a
    command over SSH without input sees), then exit with the command's status."""
    code = INTERNAL
    try:
        stdin = files[0].fileno() if has_input else os.open(os.devnull, os.O_RDONLY)
        for fd, source in enumerate((stdin, files[1].fileno(), files[2].fileno())):
            os.dup2(source, fd)
        # the streams this command reads and writes: the descriptors it was given, left open
        sys.stdin = open(0, closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
        code = command(args)
    except SystemExit as e:
        code = _status(e)
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        os._exit(code)


def _status(e: SystemExit) -> int:
    if e.code is None or isinstance(e.code, int):
        return e.code or 0
    print(e.code, file=sys.stderr)
    return 1
