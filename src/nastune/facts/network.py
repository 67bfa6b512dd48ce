"""Network facts per interface: what kind of interface it is (a NIC, or a bridge, bond, veth,
tun/tap, VLAN or macvlan that containers and VMs make), whether it carries the clients' traffic,
its MTU, rate (the operator's figure, the shaping's, or the nominal speed), driver, NUMA
locality, IRQs and their affinity, and the NIC's offloads, interrupt coalescing and ring sizes."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from nastune.facts import links
from nastune.facts.context import Context, NoValue, cpu_list, digits, integer
from nastune.facts.interrupts import IrqLine, parse_interrupts
from nastune.facts.model import Fact, Section
from nastune.jsonfile import loads
from nastune.root import Unavailable

AREA = "network"
_PCI = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")

# The offloads that decide how much work a NIC leaves to the CPU (shown, and checked by a rule).
OFFLOADS = (
    "rx-checksumming",
    "tx-checksumming",
    "scatter-gather",
    "tcp-segmentation-offload",
    "generic-segmentation-offload",
    "generic-receive-offload",
)


class Irq(BaseModel):
    number: int
    name: str
    affinity: Fact[list[int]]
    effective_affinity: Fact[list[int]]
    counts: dict[int, int]


class Feature(BaseModel):
    active: bool | None = None
    fixed: bool | None = None


class Coalesce(BaseModel):
    adaptive_rx: bool | None = None
    adaptive_tx: bool | None = None
    params: dict[str, int]


class Rings(BaseModel):
    maximum: dict[str, int]
    current: dict[str, int]


class Interface(BaseModel):
    name: str
    # physical (a device: PCI, virtio), loopback, bridge, bond, veth, tun, tap, vlan, macvlan, virtual
    kind: str
    master: str | None = None  # the bridge or bond it is a port of
    addresses: list[str] = []
    carries_clients: bool | None = None  # holds the address clients reach the NAS at (None: not known)
    link: bool = False  # judged as a link of the NAS by the rules about links
    role: str = ""  # how the rules treat it, in words
    mtu: Fact[int]
    speed_mbps: Fact[int]
    rate_mbps: Fact[int] | None = None  # for every rule: the operator's, the shaping's, else the nominal speed
    operstate: Fact[str]
    driver: Fact[str]
    pci_address: str | None = None
    numa_node: Fact[int]
    local_cpus: Fact[list[int]]
    rx_queues: int
    tx_queues: int
    irq_source: str
    irqs: list[Irq]
    features: Fact[dict[str, Feature]]
    coalesce: Fact[Coalesce]
    rings: Fact[Rings]


class Softnet(BaseModel):
    """One CPU's receive backlog since boot: frames it processed, frames dropped because its
    backlog (net.core.netdev_max_backlog) was full, and the times a NAPI poll stopped with work
    left because it used up net.core.netdev_budget or netdev_budget_usecs (time_squeeze)."""

    cpu: int
    processed: int
    dropped: int
    time_squeeze: int


def softnet(text: str) -> list[Softnet]:
    """/proc/net/softnet_stat: a line per online CPU, hexadecimal columns; the CPU's number is the
    13th column since Linux 5.10 (before, a line's place, which offline CPUs do not hold)."""
    out = []
    for number, line in enumerate(text.splitlines()):
        fields = line.split()
        if len(fields) < 3:
            raise ValueError(f"line {number + 1}: {len(fields)} columns, at least 3 expected")
        try:
            counts = [int(f, 16) for f in fields]
        except ValueError:
            raise ValueError(f"line {number + 1}: not hexadecimal counters") from None
        cpu = counts[12] if len(counts) >= 13 else number
        out.append(Softnet(cpu=cpu, processed=counts[0], dropped=counts[1], time_squeeze=counts[2]))
    return out


LISTEN = "0A"  # the state column of /proc/net/tcp for a listening socket (include/net/tcp_states.h)


def listening(text: str) -> list[int]:
    """/proc/net/tcp or tcp6: the local ports of the sockets in LISTEN state, each once."""
    ports = set()
    for number, line in enumerate(text.splitlines()[1:], 2):
        fields = line.split()
        if len(fields) < 4 or ":" not in fields[1]:
            raise ValueError(f"line {number}: not a socket line")
        if fields[3] == LISTEN:
            ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return sorted(ports)


class NetworkFacts(Section):
    interfaces: list[Interface]
    client_address: str | None = None  # the address clients reach the NAS at, as the caller said
    tcp_segments: Fact[dict[str, int]] | None = None  # since boot: OutSegs and RetransSegs (/proc/net/snmp)
    softnet: Fact[list[Softnet]] | None = None  # since boot, per CPU (/proc/net/softnet_stat)
    # the local TCP ports something listens on, over IPv4 and IPv6 (a service bound to :: shows in tcp6 only)
    listening: Fact[list[int]] | None = None
    listening6: Fact[list[int]] | None = None

    def listens(self, port: int) -> bool | None:
        """Whether something listens on TCP `port` here (None: neither table was read)."""
        tables = [t.known_value for t in (self.listening, self.listening6) if t is not None]
        read = [ports for ports in tables if ports is not None]
        return any(port in ports for ports in read) if read else None

    def interface(self, name: str) -> Interface | None:
        return next((i for i in self.interfaces if i.name == name), None)


def tcp_segments(text: str) -> dict[str, int]:
    """/proc/net/snmp's two Tcp lines, names then values: the segments sent and those sent again."""
    rows = [line.split()[1:] for line in text.splitlines() if line.startswith("Tcp:")]
    if len(rows) != 2 or len(rows[0]) != len(rows[1]):
        raise ValueError("no Tcp counters")
    counters = dict(zip(*rows))
    return {key: integer(counters[key]) for key in ("OutSegs", "RetransSegs") if key in counters}


MAX_SPEED = 10_000_000  # Mb/s: 10 Tb/s, beyond any NIC; a driver's -1 says "unknown"


def speed(text: str) -> int:
    value = integer(text, -1, MAX_SPEED)
    if value <= 0:
        raise NoValue("speed not reported by the driver")
    return value


def numa_node(text: str) -> int:
    value = integer(text, -1, 1023)
    if value < 0:
        raise NoValue("the device reports no NUMA node")
    return value


def ethtool_features(text: str) -> dict[str, Feature]:
    data = loads(text, "ethtool --json -k")
    entry = data[0] if isinstance(data, list) and data else data
    if not isinstance(entry, dict):
        raise ValueError("ethtool --json -k: not an object of features")
    return {k: Feature(active=v.get("active"), fixed=v.get("fixed")) for k, v in entry.items() if isinstance(v, dict)}


def _number(value: str) -> int | None:
    value = value.strip()
    return int(value) if digits(value) else None


def ethtool_coalesce(text: str) -> Coalesce:
    adaptive: dict[str, bool | None] = {}
    params: dict[str, int] = {}
    for line in text.splitlines():
        if line.startswith("Adaptive"):
            for direction, state in re.findall(r"(RX|TX):\s*(\S+)", line):
                adaptive[direction] = {"on": True, "off": False}.get(state)
            continue
        key, sep, value = line.partition(":")
        if sep and " " not in key.strip() and (n := _number(value)) is not None:
            params[key.strip()] = n
    if not adaptive and not params:
        raise ValueError("no coalescing parameters")
    return Coalesce(adaptive_rx=adaptive.get("RX"), adaptive_tx=adaptive.get("TX"), params=params)


def htb_class_rate(text: str, classid: str) -> int | None:
    """The rate in bit/s of htb class `classid` in `tc class show` text (Debian 12's tc prints
    no JSON for classes), e.g. "class htb 1:10 root prio 0 rate 1Gbit ceil 1Gbit ..."."""
    m = re.search(rf"class htb {re.escape(classid)} .*?\brate (\d+(?:\.\d+)?)([KMG]?)bit", text)
    return int(float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]) if m else None


def ethtool_rings(text: str) -> Rings:
    sections: dict[str, dict[str, int]] = {"maximum": {}, "current": {}}
    current = None
    for line in text.splitlines():
        if line.startswith("Pre-set maximums"):
            current = sections["maximum"]
        elif line.startswith("Current hardware settings"):
            current = sections["current"]
        elif current is not None and ":" in line:
            key, _, value = line.partition(":")
            if (n := _number(value)) is not None:
                current[key.strip().lower().replace(" ", "-")] = n
    if not sections["maximum"] and not sections["current"]:
        raise ValueError("no ring parameters")
    return Rings(**sections)


def _ancestor_with(ctx: Context, device: str, name: str) -> str | None:
    """The nearest directory from `device` up to /sys/devices that holds `name`."""
    path = device
    while path.startswith("/sys/devices/") and path != "/sys/devices":
        if ctx.root.exists(f"{path}/{name}"):
            return f"{path}/{name}"
        path = path.rsplit("/", 1)[0]
    return None


def _irqs(ctx: Context, name: str, device: str | None, lines: dict[int, IrqLine]) -> tuple[str, list[Irq]]:
    numbers: list[int] = []
    source = "/proc/interrupts (by name)"
    msi = _ancestor_with(ctx, device, "msi_irqs") if device else None
    if msi:
        numbers = sorted(int(n) for n in ctx.listdir(msi) if digits(n))
        source = msi
    if not numbers:
        token = re.compile(rf"(^|[^A-Za-z0-9]){re.escape(name)}([^A-Za-z0-9.]|$)")
        numbers = [n for n, line in lines.items() if any(token.search(a) for a in line.names)]
    irqs = []
    for n in numbers:
        line = lines.get(n)
        irqs.append(
            Irq(
                number=n,
                name=",".join(line.names) if line else "",
                affinity=ctx.fact(f"/proc/irq/{n}/smp_affinity_list", cpu_list),
                effective_affinity=ctx.fact(f"/proc/irq/{n}/effective_affinity_list", cpu_list),
                counts=line.counts if line else {},
            )
        )
    return source, irqs


def _interface(ctx: Context, name: str, lines: dict[int, IrqLine]) -> Interface:
    base = f"/sys/class/net/{name}"
    device = ctx.root.canonical(f"{base}/device") if ctx.root.exists(f"{base}/device") else None
    kind, master = links.kind(ctx, name, device)
    pci = next((p for p in reversed((device or "").split("/")) if _PCI.match(p)), None)
    numa_path = _ancestor_with(ctx, device, "numa_node") if device else None
    cpus_path = _ancestor_with(ctx, device, "local_cpulist") if device else None
    if device:
        driver_link = f"{base}/device/driver"
        try:
            driver: Fact[str] = Fact(value=ctx.root.readlink(driver_link).rsplit("/", 1)[-1], source=driver_link)
        except Unavailable as e:
            driver = Fact.missing(driver_link, e.reason)
    else:
        driver = Fact.missing(f"{base}/device/driver", f"{kind} interface")
    queues = ctx.listdir(f"{base}/queues")
    irq_source, irqs = _irqs(ctx, name, device, lines)
    no_nic: Fact[Any] = Fact.missing("ethtool", "loopback interface")
    return Interface(
        name=name,
        kind=kind,
        master=master,
        mtu=ctx.fact(f"{base}/mtu", integer),
        speed_mbps=ctx.fact(f"{base}/speed", speed)
        if kind != "loopback"
        else Fact.missing(f"{base}/speed", "loopback"),
        operstate=ctx.fact(f"{base}/operstate"),
        driver=driver,
        pci_address=pci,
        numa_node=ctx.fact(numa_path, numa_node)
        if numa_path
        else Fact.missing(f"{base}/device/numa_node", "no NUMA information"),
        local_cpus=ctx.fact(cpus_path, cpu_list)
        if cpus_path
        else Fact.missing(f"{base}/device/local_cpulist", "no locality information"),
        rx_queues=sum(q.startswith("rx-") for q in queues),
        tx_queues=sum(q.startswith("tx-") for q in queues),
        irq_source=irq_source,
        irqs=irqs,
        features=no_nic
        if kind == "loopback"
        else ctx.command_fact(["ethtool", "--json", "-k", name], ethtool_features),
        coalesce=no_nic if kind == "loopback" else ctx.command_fact(["ethtool", "-c", name], ethtool_coalesce),
        rings=no_nic if kind == "loopback" else ctx.command_fact(["ethtool", "-g", name], ethtool_rings),
    )


def collect(ctx: Context) -> NetworkFacts:
    lines: dict[int, IrqLine] = {}
    text = ctx.text("/proc/interrupts")
    if text is not None:
        try:
            lines = {irq.number: irq for irq in parse_interrupts(text)[1]}
        except ValueError as e:
            ctx.warn("/proc/interrupts", f"cannot parse: {e}")
    found = [_interface(ctx, n, lines) for n in ctx.listdir("/sys/class/net") if ctx.root.isdir(f"/sys/class/net/{n}")]
    return NetworkFacts(
        interfaces=_judged(ctx, found),
        client_address=ctx.reading.address,
        tcp_segments=ctx.fact("/proc/net/snmp", tcp_segments),
        softnet=ctx.fact("/proc/net/softnet_stat", softnet),
        listening=ctx.fact("/proc/net/tcp", listening),
        listening6=ctx.fact("/proc/net/tcp6", listening),
    )


def _judged(ctx: Context, interfaces: list[Interface]) -> list[Interface]:
    """Each interface with its addresses, whether it carries the clients' traffic, whether the
    rules about links judge it, in words why, and its rate (facts/links.py)."""
    held = links.addresses(ctx)
    address = ctx.reading.address
    carrying = {n for n, found in held.items() if address in found} if address and held else set()
    nics = {i.master for i in interfaces if i.kind == "physical" and i.master}  # bridges and bonds over a NIC
    out = []
    for i in interfaces:
        carries = (i.name in carrying) if carrying else None
        judged = bool(carries) or (
            not carrying
            and i.kind not in ("loopback", *links.VIRTUAL)
            and not i.master
            and (i.kind not in ("bridge", "bond") or i.name in nics)
        )
        out.append(
            i.model_copy(
                update={
                    "addresses": held.get(i.name, []),
                    "carries_clients": carries,
                    "link": judged,
                    "role": _role(i, carries, judged, address),
                    "rate_mbps": _rate(ctx, i, carries),
                }
            )
        )
    if not any(i.link for i in out):  # a NAS in a container sees only its own virtual interfaces
        alone = "a link of the NAS ({}: no NIC is visible here, as in a container)"
        out = [
            i if i.kind == "loopback" else i.model_copy(update={"link": True, "role": alone.format(i.kind)})
            for i in out
        ]
    return out


def _role(i: Interface, carries: bool | None, judged: bool, address: str | None) -> str:
    port = f", a port of {i.master}" if i.master else ""
    if carries:
        return f"the NAS's link: it holds {address}, the address clients use"
    if judged:
        return f"a link of the NAS ({i.kind}{port})"
    if i.kind == "loopback":
        return "loopback"
    why = f"the clients reach the NAS at {address}, on another interface" if carries is False else "a virtual interface"
    if carries is None and i.kind in ("bridge", "bond"):
        why = "no NIC is a port of it"
    return f"not judged as a link ({i.kind}{port}: {why})"


def _rate(ctx: Context, i: Interface, carries: bool | None) -> Fact[int]:
    """The link's rate for every rule: the caller's figure for the clients' link (an inventory's
    nastune_link_rate), else the interface's shaping, else its nominal speed."""
    if carries and ctx.reading.link_bps:
        return Fact(value=round(ctx.reading.link_bps / 1e6), source="the NAS's link rate as given (nastune_link_rate)")
    if i.kind == "loopback":
        return i.speed_mbps
    return links.shaped(ctx, i.name) or i.speed_mbps
