"""A file that is not on the server fails its workload at once: each client tool's own words for
it (as smbclient 4.17, curl 7.88 and libnfs 5 print them, read off the lab) make a NotThere,
which the runner does not try again; any other failure is tried again."""

from __future__ import annotations

import pytest

from nastune.bench import runner
from nastune.bench.targets import Target
from nastune.protocols import PROTOCOLS
from nastune.protocols.client import BenchError, NotThere, on_client

SAID = {  # what each tool printed, and its exit status, for a file that is not there
    "smb": ("NT_STATUS_OBJECT_NAME_NOT_FOUND opening remote file \\\\gone.bin", 1),
    "ftp": ("curl: (78) The file does not exist", 78),
    "nfs": (
        'Failed to open file /gone.bin: open call failed with "NFS: Lookup of /gone.bin failed with NFS3ERR_NOENT(-2)"',
        10,
    ),
}
OTHER = {  # and for a server that is not answering
    "smb": ("do_connect: Connection to 10.77.0.1 failed (Error NT_STATUS_CONNECTION_REFUSED)", 1),
    "ftp": ("curl: (7) Failed to connect to 10.77.0.1 port 21 after 0 ms: Couldn't connect to server", 7),
    "nfs": ("Failed to mount nfs share : mount_cb: RPC error: Mount failed with error MNT3ERR_NOENT(2) ", 10),
}


def said(words: str, status: int) -> list[str]:
    return ["sh", "-c", 'printf "%s\\n" "$1" >&2; exit "$2"', "sh", words, str(status)]


@pytest.mark.parametrize("kind", sorted(SAID))
def test_each_tool_s_words_for_a_missing_file_make_a_not_there(kind):
    target = Target(kind, f"{kind}://nas/data")
    with pytest.raises(NotThere, match=r"^get gone\.bin failed \(exit \d+\)"):
        on_client(target, said(*SAID[kind]), "get gone.bin", words=PROTOCOLS[kind].words)
    with pytest.raises(BenchError) as other:
        on_client(target, said(*OTHER[kind]), "get", words=PROTOCOLS[kind].words)
    assert not isinstance(other.value, NotThere)


def test_the_runner_tries_a_failure_again_but_not_a_missing_file(monkeypatch):
    monkeypatch.setattr(runner, "RETRY_PAUSE", 0)
    for failure, tries in ((BenchError("reset"), runner.RETRIES + 1), (NotThere("gone.bin"), 1)):
        calls, retries = list[int](), list[str]()

        def fails(failure=failure, calls=calls):
            calls.append(1)
            raise failure

        with pytest.raises(type(failure)):
            runner.attempt(fails, "repeat 1", retries)
        assert len(calls) == tries
        assert len(retries) == tries
