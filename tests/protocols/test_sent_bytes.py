"""An upload's course read from the client's sent bytes (client.timed with `sent`): bash on the
client reads /proc/net/dev once a second beside the tool, every interface but lo, in the client's
own network namespace. Here the client is a namespace of its own whose tool sends datagrams out
of a veth pair: what it sent is counted, the loopback's traffic is not, and the tool's
output and exit status pass through unchanged."""

from __future__ import annotations

import os
import sys

import pytest

from nastune.bench.cliff import sent_rates
from nastune.bench.targets import Target
from nastune.protocols.client import BenchError, timed

DATAGRAMS, PAYLOAD = 2000, 1400
SEND = (
    "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
    f"[s.sendto(b'x' * {PAYLOAD}, (HOST, 9)) for _ in range({DATAGRAMS})]; print('sent')"
)


def _tool(host: str, code: int = 0) -> list[str]:
    """A veth pair up in the client's empty namespace, a second's wait, datagrams to `host`, another wait."""
    send = SEND.replace("HOST", repr(host))
    steps = (
        "sysctl -qw net.ipv6.conf.default.disable_ipv6=1"  # no neighbour discovery of its own
        " && ip link set lo up && ip link add v0 type veth peer name v1 && ip link set v1 up && ip link set v0 up"
        " && ip addr add 10.9.9.1/24 dev v0 && ip neigh add 10.9.9.2 lladdr 02:00:00:00:00:02 dev v0"
    )
    return ["sh", "-c", f'{steps} && sleep 1.1 && {sys.executable} -c "{send}" && sleep 1.1 && exit {code}']


@pytest.fixture
def client() -> Target:
    if os.geteuid() != 0:
        pytest.skip("a network namespace of its own needs root")
    return Target("smb", "smb://nas/data", host="nas", share="data", client_via=("unshare", "--net"))


def test_what_the_client_sent_is_read_each_second_while_the_tool_ran(client):
    sent: list[tuple[float, int]] = []
    _, end = timed(client, _tool("10.9.9.2"), "sender", sent=sent)
    times = [t for t, _ in sent]
    assert len(sent) >= 3 and times == sorted(times) and times[-1] <= end  # the last read once the tool had ended
    moved = sent[-1][1] - sent[0][1]
    assert DATAGRAMS * PAYLOAD < moved < DATAGRAMS * (PAYLOAD + 100)  # the payload and its headers
    rates = sent_rates(sent, DATAGRAMS * PAYLOAD)  # 2.8 MB of datagrams, their headers left out
    assert 2.8 / 2 <= sum(rates) <= 2.8 + 0.01  # a second's rate each; a last part-second joins one


def test_the_loopback_s_traffic_is_not_counted(client):
    sent: list[tuple[float, int]] = []
    timed(client, _tool("127.0.0.1"), "sender", sent=sent)
    assert len(sent) >= 3 and {b for _, b in sent} == {0}


def test_the_tool_s_failure_is_its_own(client):
    sent: list[tuple[float, int]] = []
    with pytest.raises(BenchError, match=r"sender failed \(exit 3\)"):
        timed(client, _tool("10.9.9.2", code=3), "sender", sent=sent)
