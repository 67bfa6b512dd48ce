"""System facts: kernel, distribution, CPUs, NUMA nodes, memory, and the daemons that matter."""

from __future__ import annotations

from pydantic import BaseModel

from nastune.facts import appliance, managers
from nastune.facts.appliance import Detected
from nastune.facts.context import MAX_CPU, Context, NoValue, cpu_list, digits, integer
from nastune.facts.managers import Managers
from nastune.facts.model import Fact, Section
from nastune.root import Unavailable

AREA = "system"

# Daemons whose presence a rule or the lab needs to know about (comm names, 15 chars max).
DAEMONS = (
    "irqbalance",
    "smbd",
    "nmbd",
    "ganesha.nfsd",
    "nfsd",
    "rpcbind",
    "rpc.mountd",
    "vsftpd",
    "zed",
    "mdadm",
    "tuned",
    "bpftune",
    "tracker-miner-f",  # Tracker's indexer (its comm, cut to 15 characters), Samba's Spotlight backend
    "tracker-store",
)


class NumaNode(BaseModel):
    id: int
    cpus: Fact[list[int]]
    memory_bytes: Fact[int]


class Process(BaseModel):
    pid: int
    name: str
    cmdline: list[str]


class CpuFreq(BaseModel):
    """CPU frequency scaling as the kernel reports it for every CPU that has it."""

    driver: str | None = None  # intel_pstate, amd-pstate, acpi-cpufreq, ...
    governors: dict[str, int] = {}  # governor -> how many CPUs use it
    preferences: dict[str, int] = {}  # energy_performance_preference -> how many CPUs


class SystemFacts(Section):
    kernel: Fact[str]
    kernel_build: Fact[str]
    distribution: Fact[str]
    cpu_model: Fact[str]
    cpu_flags: Fact[list[str]] | None = None  # the ones that make SMB signing and encryption cheap
    cpufreq: Fact[CpuFreq] | None = None
    cpus: Fact[int]
    numa_nodes: list[NumaNode]
    memory_bytes: Fact[int]
    swap_bytes: Fact[int]
    irqbalance_running: Fact[bool]
    daemons: list[Process]
    appliance: Fact[Detected] | None = None  # TrueNAS SCALE, OpenMediaVault: they own their servers' files
    managers: Fact[Managers] | None = None  # TuneD, irqbalance, bpftune: they set some of the same settings

    def daemon(self, name: str) -> list[Process]:
        return [p for p in self.daemons if p.name == name]


def meminfo_bytes(text: str, key: str = "MemTotal") -> int:
    """Read a 'Key:  123 kB' line (also the 'Node 0 MemTotal:' form) as bytes."""
    for line in text.splitlines():
        head, _, rest = line.partition(":")
        if head.split()[-1:] == [key]:
            number, *unit = rest.split()
            value = integer(number) * (1024 if unit == ["kB"] else 1)
            if value > 1 << 60:  # 1 EiB: beyond any machine
                raise ValueError(f"{key} {number} {' '.join(unit)} is out of range")
            return value
    raise KeyError(key)


def total_memory(text: str) -> int:
    """The machine's memory: every rule that sizes a buffer by it needs a real amount."""
    value = meminfo_bytes(text)
    if value < 1 << 20:
        raise ValueError(f"MemTotal of {value} bytes is not a machine's memory")
    return value


def os_release(text: str) -> str:
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            fields[key.strip()] = value.strip().strip('"')
    return fields.get("PRETTY_NAME") or fields["NAME"]


def cpuinfo_model(text: str) -> str:
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "cpu model"):
            return value.strip()
    raise KeyError("model name")


CRYPTO_FLAGS = ("aes", "pclmulqdq", "avx2", "vaes", "vpclmulqdq", "sha_ni")  # AES-GCM/GMAC and friends


def cpuinfo_flags(text: str) -> list[str]:
    """The crypto flags of the first CPU (`flags` on x86, `Features` on ARM)."""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            words = set(value.split())
            return [f for f in CRYPTO_FLAGS if f in words or (f == "pclmulqdq" and "pmull" in words)]
    raise NoValue("no flags line (an architecture that does not list them)")


def cpufreq(ctx: Context) -> Fact[CpuFreq]:
    """Each CPU's governor and energy preference; unknown where the kernel offers no cpufreq
    (most VMs): there is nothing to tune then."""
    base = "/sys/devices/system/cpu"
    cpus = [n for n in ctx.listdir(base) if n.startswith("cpu") and digits(n[3:])][: MAX_CPU + 1]
    found = CpuFreq()
    for cpu in cpus:
        governor = ctx.text(f"{base}/{cpu}/cpufreq/scaling_governor")
        if governor is None:
            continue
        found.governors[governor.strip()] = found.governors.get(governor.strip(), 0) + 1
        preference = ctx.text(f"{base}/{cpu}/cpufreq/energy_performance_preference")
        if preference is not None:
            found.preferences[preference.strip()] = found.preferences.get(preference.strip(), 0) + 1
    if not found.governors:
        return Fact.missing(f"{base}/cpu*/cpufreq", "no cpufreq here (a VM, or a kernel without it)")
    found.driver = (ctx.text(f"{base}/cpu0/cpufreq/scaling_driver") or "").strip() or None
    return Fact(value=found, source=f"{base}/cpu*/cpufreq")


def count_cpus(text: str) -> int:
    return len(cpu_list(text))


def _numa_nodes(ctx: Context) -> list[NumaNode]:
    base = "/sys/devices/system/node"
    nodes = sorted(int(n[4:]) for n in ctx.listdir(base) if n.startswith("node") and digits(n[4:]))
    return [
        NumaNode(
            id=n,
            cpus=ctx.fact(f"{base}/node{n}/cpulist", cpu_list),
            memory_bytes=ctx.fact(f"{base}/node{n}/meminfo", meminfo_bytes),
        )
        for n in nodes
    ]


def _network_of(ctx: Context, pid: str) -> str | None:
    try:
        return ctx.root.readlink(f"/proc/{pid}/ns/net")
    except Unavailable:
        return None


def daemons(ctx: Context) -> list[Process]:
    """The file servers running where the facts are read. Read from inside a network namespace
    of its own (the lab's NAS, which shares this host's processes with any other lab), only
    those that serve in it; from the host's namespace, all of them."""
    mine = _network_of(ctx, "self")
    alone = mine is not None and mine != _network_of(ctx, "1")
    found = []
    for pid in ctx.listdir("/proc"):
        if not digits(pid):
            continue
        comm = ctx.text(f"/proc/{pid}/comm")
        if comm is None or comm.strip() not in DAEMONS or (alone and _network_of(ctx, pid) != mine):
            continue
        cmdline = ctx.text(f"/proc/{pid}/cmdline") or ""
        found.append(Process(pid=int(pid), name=comm.strip(), cmdline=[a for a in cmdline.split("\0") if a]))
    return found


def collect(ctx: Context) -> SystemFacts:
    running = daemons(ctx)
    online = ctx.fact("/sys/devices/system/cpu/online", count_cpus)
    cpus = (
        online
        if online.known
        else ctx.fact("/proc/cpuinfo", lambda t: sum(1 for ln in t.splitlines() if ln.startswith("processor")))
    )
    return SystemFacts(
        kernel=ctx.fact("/proc/sys/kernel/osrelease"),
        kernel_build=ctx.fact("/proc/sys/kernel/version"),
        distribution=ctx.fact("/etc/os-release", os_release),
        cpu_model=ctx.fact("/proc/cpuinfo", cpuinfo_model),
        cpu_flags=ctx.fact("/proc/cpuinfo", cpuinfo_flags),
        cpufreq=cpufreq(ctx),
        cpus=cpus,
        numa_nodes=_numa_nodes(ctx),
        memory_bytes=ctx.fact("/proc/meminfo", total_memory),
        swap_bytes=ctx.fact("/proc/meminfo", lambda t: meminfo_bytes(t, "SwapTotal")),
        irqbalance_running=Fact(value=any(p.name == "irqbalance" for p in running), source="/proc/[pid]/comm"),
        daemons=running,
        appliance=appliance.collect(ctx),
        managers=managers.collect(ctx, {p.name for p in running}),
    )
