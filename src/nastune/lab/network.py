"""The lab's network: a nas namespace and client namespaces joined by veth pairs (through
a bridge namespace when there are several clients), shaped with htb in both directions."""

from __future__ import annotations

from pathlib import Path

from nastune.facts.network import htb_class_rate
from nastune.lab.scenario import rate_bits
from nastune.lab.sh import LabError, run
from nastune.lab.state import State

NAS_NS = "nt-nas"
SWITCH_NS = "nt-sw"
SUBNET = "10.77.0"
NAS_IP = f"{SUBNET}.1"
LINK = "lab0"  # the interface name inside every host of the lab
HTB_OVERHEAD = 14  # htb on a veth counts only the Ethernet header of each frame


def client_ns(i: int) -> str:
    return f"nt-c{i}"


def client_ip(i: int) -> str:
    return f"{SUBNET}.{10 + i}"


OWNERS = Path("/run/nastune/lab-netns")  # tmpfs: gone on reboot, like the namespaces


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
    state.add("netns", name=ns)
    OWNERS.mkdir(parents=True, exist_ok=True)
    (OWNERS / ns).write_text(f"{state.dir.resolve()}\n")
    run(["ip", "netns", "add", ns])
    run(["ip", "-n", ns, "link", "set", "lo", "up"])


def _pair(ns_a: str, name_a: str, ns_b: str, name_b: str, tag: str) -> None:
    """A veth pair created under unique temporary names, moved into two namespaces and renamed."""
    tmp_a, tmp_b = f"nt{tag}a", f"nt{tag}b"
    run(["ip", "link", "add", tmp_a, "type", "veth", "peer", "name", tmp_b])
    run(["ip", "link", "set", tmp_a, "netns", ns_a])
    run(["ip", "link", "set", tmp_b, "netns", ns_b])
    run(["ip", "-n", ns_a, "link", "set", tmp_a, "name", name_a])
    run(["ip", "-n", ns_b, "link", "set", tmp_b, "name", name_b])


def shape(ns: str, dev: str, rate: str) -> None:
    """htb root qdisc with one class at `rate` (ceil = rate), default for all traffic."""
    bits = str(rate_bits(rate))
    run(["tc", "-n", ns, "qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "10"])
    run(
        [
            "tc",
            "-n",
            ns,
            "class",
            "replace",
            "dev",
            dev,
            "parent",
            "1:",
            "classid",
            "1:10",
            "htb",
            "rate",
            bits + "bit",
            "ceil",
            bits + "bit",
            "quantum",
            "200000",
        ]
    )


def set_sysctl(ns: str, key: str, value: str) -> None:
    """Write a sysctl inside a namespace and read it back: some keys are read-only there,
    yet `sysctl -w` exits 0."""
    run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", f"{key}={value}"], check=False)
    got = run(["ip", "netns", "exec", ns, "sysctl", "-n", key]).stdout
    if got.split() != value.split():
        raise LabError(f"sysctl {key} in {ns}: wrote {value!r}, reads back {' '.join(got.split())!r}")


def build(state: State, clients: int, rate: str, mtu: int) -> None:
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
            shape(SWITCH_NS, port, rate)
        run(["ip", "-n", SWITCH_NS, "link", "set", "br0", "mtu", str(mtu), "up"])
        ends = [(NAS_NS, LINK)] + [(client_ns(i), LINK) for i in range(1, clients + 1)]
    for (ns, dev), ip in zip(ends, [NAS_IP] + [client_ip(i) for i in range(1, clients + 1)]):
        run(["ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", dev])
        run(["ip", "-n", ns, "link", "set", dev, "mtu", str(mtu), "up"])
        shape(ns, dev, rate)


def qdisc_rate(ns: str, dev: str = LINK) -> int | None:
    """The htb class rate in bit/s on a lab interface, or None when unshaped."""
    out = run(["tc", "-n", ns, "class", "show", "dev", dev], check=False)
    return htb_class_rate(out.stdout, "1:10") if out.returncode == 0 else None


def remove(ns: str) -> None:
    if ns in existing_namespaces():
        run(["ip", "netns", "del", ns])
    (OWNERS / ns).unlink(missing_ok=True)
