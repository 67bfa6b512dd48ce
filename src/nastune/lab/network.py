"""The lab's network: a nas namespace and client namespaces joined by veth pairs (through
a bridge namespace when there are several clients), shaped with htb in both directions like a
real Ethernet link of the scenario's rate.

htb counts each frame as its Ethernet header and payload (MTU + 14 bytes); a real wire also
carries the FCS, the preamble and the inter-frame gap (MTU + 38). tc's size table cannot add
that per frame here: TCP hands the qdisc GSO super-packets, and the overhead is counted once per
super-packet (measured on kernel 6.18: 122.7-123.9 MB/s at "1 Gbit" and MTU 1500, above real
GbE's 117.7). So the htb rate is the line rate scaled by (MTU + 14) / (MTU + 38): 984.4 Mbit/s
for 1 GbE at MTU 1500, 997.3 at 9000, and an MTU change reshapes the segment."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

from nastune.facts.network import htb_class_rate
from nastune.lab.sh import LabError, run
from nastune.lab.state import Netns, State
from nastune.units import rate_bits

# The first word of every name the lab gives a namespace, a temporary link or a cgroup: the test
# suite's labs have their own (tests/conftest.py), so they never touch a lab an operator has up.
PREFIX = os.environ.get("NASTUNE_LAB_PREFIX", "nt")
NAS_NS = f"{PREFIX}-nas"
SWITCH_NS = f"{PREFIX}-sw"
SUBNET = "10.77.0"
NAS_IP = f"{SUBNET}.1"
LINK = "lab0"  # the interface name inside every host of the lab
HTB_FRAME = 14  # the bytes of a frame beyond its MTU that htb counts: the Ethernet header
WIRE_FRAME = 38  # and that a real wire carries: header, FCS, preamble, inter-frame gap
SHAPED = "1:10"  # the htb class every lab interface sends through


def htb_rate(line_bps: int, mtu: int) -> int:
    """The htb rate that passes full frames as fast as an Ethernet link of `line_bps` does,
    rounded down to a rate tc prints exactly (it prints no JSON for classes, and cuts a rate to
    a whole number below 1,000,000 of its unit: 9,843,953,184 bit/s reads back as 9843Mbit)."""
    exact = line_bps * (mtu + HTB_FRAME) / (mtu + WIRE_FRAME)
    step = 8 if exact < 10**6 else 1000 if exact < 10**9 else 10**6  # whole bytes, as htb keeps them
    return max(8, int(exact // step) * step)


def line_rate(htb_bps: int, mtu: int) -> int:
    """The line rate an htb rate stands for at `mtu`: the one with the fewest significant
    digits that htb_rate turns into it, so a reshaping at another MTU keeps the rate exactly."""
    exact = htb_bps * (mtu + WIRE_FRAME) / (mtu + HTB_FRAME)
    for digits in range(1, 16):
        line = int(round(exact, digits - 1 - math.floor(math.log10(exact))))
        if htb_rate(line, mtu) == htb_bps:
            return line
    return round(exact)


def client_ns(i: int) -> str:
    return f"{PREFIX}-c{i}"


def client_ip(i: int) -> str:
    return f"{SUBNET}.{10 + i}"


OWNERS = Path("/run/nastune/lab-netns")  # tmpfs: gone on reboot, like the namespaces


def check_prefix() -> None:
    """A prefix that keeps every name the lab makes valid (an interface name has 15 bytes)."""
    if not re.fullmatch(r"[a-z][a-z0-9]{0,7}", PREFIX):
        raise LabError(f"NASTUNE_LAB_PREFIX={PREFIX!r}: give 1-8 lower-case letters or digits, a letter first")


def existing_namespaces() -> set[str]:
    out = run(["ip", "netns", "list"]).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def owner(ns: str) -> Path | None:
    """The directory of the lab that created namespace `ns`, so a lab left up by a killed
    process (or one in another directory) can be named and taken down from its record."""
    try:
        return Path((OWNERS / ns).read_text().strip())
    except OSError:
        return None


def _namespace(state: State, ns: str) -> None:
    state.add(Netns(name=ns))
    OWNERS.mkdir(parents=True, exist_ok=True)
    (OWNERS / ns).write_text(f"{state.dir.resolve()}\n")
    run(["ip", "netns", "add", ns])
    run(["ip", "-n", ns, "link", "set", "lo", "up"])


def _pair(ns_a: str, name_a: str, ns_b: str, name_b: str, tag: str) -> None:
    """A veth pair created under unique temporary names, moved into two namespaces and renamed."""
    tmp_a, tmp_b = f"{PREFIX}{tag}a", f"{PREFIX}{tag}b"
    run(["ip", "link", "add", tmp_a, "type", "veth", "peer", "name", tmp_b])
    run(["ip", "link", "set", tmp_a, "netns", ns_a])
    run(["ip", "link", "set", tmp_b, "netns", ns_b])
    run(["ip", "-n", ns_a, "link", "set", tmp_a, "name", name_a])
    run(["ip", "-n", ns_b, "link", "set", tmp_b, "name", name_b])


def shape(ns: str, dev: str, line_bps: int, mtu: int) -> None:
    """htb root qdisc with one class (ceil = rate), default for all traffic, passing frames of
    `mtu` at the Ethernet line rate `line_bps`."""
    tc = ["tc", "-n", ns]
    run([*tc, "qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "10"])
    run([*tc, "class", "replace", "dev", dev, "parent", "1:", "classid", SHAPED, "htb", *_rates(line_bps, mtu)])


def _rates(line_bps: int, mtu: int) -> list[str]:
    bits = f"{htb_rate(line_bps, mtu)}bit"
    return ["rate", bits, "ceil", bits, "quantum", "200000"]


def set_sysctl(ns: str, key: str, value: str) -> None:
    """Write a sysctl inside a namespace and read it back: some keys are read-only there,
    yet `sysctl -w` exits 0."""
    run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", f"{key}={value}"], check=False)
    got = run(["ip", "netns", "exec", ns, "sysctl", "-n", key]).stdout
    if got.split() != value.split():
        raise LabError(f"sysctl {key} in {ns}: wrote {value!r}, reads back {' '.join(got.split())!r}")


def build(state: State, clients: int, rate: str, mtu: int) -> None:
    line = rate_bits(rate)
    _namespace(state, NAS_NS)
    for i in range(1, clients + 1):
        _namespace(state, client_ns(i))
    if clients == 1:
        _pair(NAS_NS, LINK, client_ns(1), LINK, "1")
        ends = [(NAS_NS, LINK), (client_ns(1), LINK)]
    else:
        _namespace(state, SWITCH_NS)
        run(["ip", "-n", SWITCH_NS, "link", "add", "br0", "type", "bridge"])
        _pair(NAS_NS, LINK, SWITCH_NS, "p0", "0")
        ports = ["p0"]
        for i in range(1, clients + 1):
            _pair(client_ns(i), LINK, SWITCH_NS, f"p{i}", str(i))
            ports.append(f"p{i}")
        for port in ports:
            run(["ip", "-n", SWITCH_NS, "link", "set", port, "master", "br0", "mtu", str(mtu), "up"])
            # a switch port sends at the link's rate too: toward the nas, all clients' writes
            # share its one link, as they do through a real switch
            shape(SWITCH_NS, port, line, mtu)
        run(["ip", "-n", SWITCH_NS, "link", "set", "br0", "mtu", str(mtu), "up"])
        ends = [(NAS_NS, LINK)] + [(client_ns(i), LINK) for i in range(1, clients + 1)]
    for (ns, dev), ip in zip(ends, [NAS_IP] + [client_ip(i) for i in range(1, clients + 1)]):
        run(["ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", dev])
        run(["ip", "-n", ns, "link", "set", dev, "mtu", str(mtu), "up"])
        shape(ns, dev, line, mtu)


def qdisc_rate(ns: str, dev: str = LINK, mtu: int | None = None) -> int | None:
    """The line rate in bit/s that a lab interface is shaped to (its htb rate at its MTU, read
    unless given), or None when unshaped."""
    out = run(["tc", "-n", ns, "class", "show", "dev", dev], check=False)
    rate = htb_class_rate(out.stdout, SHAPED) if out.returncode == 0 else None
    return rate and line_rate(rate, mtu or mtu_of(ns, dev))


def into_nas() -> tuple[str, str]:
    """The interface that sends toward the NAS (what its writes cross): the switch's port to it,
    or with one client that client's own."""
    return (SWITCH_NS, "p0") if SWITCH_NS in existing_namespaces() else (client_ns(1), LINK)


def mtu_of(ns: str, dev: str) -> int:
    return int(json.loads(run(["ip", "-n", ns, "-j", "link", "show", "dev", dev]).stdout)[0]["mtu"])


def set_mtu(ns: str, dev: str, mtu: int, current: int | None = None) -> None:
    """An interface's MTU (`current`: as it is, when known); when shaped, kept at its line rate
    (the htb rate follows the frame size)."""
    line = qdisc_rate(ns, dev, current)
    run(["ip", "-n", ns, "link", "set", "dev", dev, "mtu", str(mtu)])
    if line:
        run(["tc", "-n", ns, "class", "change", "dev", dev, "classid", SHAPED, "htb", *_rates(line, mtu)])


def segment_mtu(ns: str, mtu: int) -> None:
    """Every interface of a namespace (a host or the switch of the segment) at `mtu`."""
    for link in json.loads(run(["ip", "-n", ns, "-j", "link", "show"]).stdout):
        if link["ifname"] != "lo":
            set_mtu(ns, link["ifname"], mtu, link["mtu"])


def remove(ns: str) -> None:
    if ns in existing_namespaces():
        run(["ip", "netns", "del", ns])
    (OWNERS / ns).unlink(missing_ok=True)
