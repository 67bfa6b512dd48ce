"""Which interfaces are the NAS's links. A host that runs containers or VMs has veths, bridges
(docker0, br-*), tun/tap and macvlan devices beside its NICs; rules about a link's MTU, speed or
offloads must judge the link the clients' traffic takes, not those. Each interface's kind is read
from sysfs (its device link, bridge/, bonding/, tun_flags, type, iflink and uevent); the one that
holds the address clients reach the NAS at is its link whatever its kind (a VM's virtio NIC, the
lab's veth); without that address, NICs and the bridges or bonds over them are."""

from __future__ import annotations

import re

from nastune.facts.context import Context
from nastune.facts.model import Fact
from nastune.jsonfile import loads

VIRTUAL = ("veth", "tun", "tap", "macvlan", "virtual")  # never a link unless it holds the address
DEVTYPES = {"vlan": "vlan", "macvlan": "macvlan", "macvtap": "macvlan", "wireguard": "tun", "bridge": "bridge"}
ARPHRD_LOOPBACK, ARPHRD_NONE = 772, 65534
MAX_MBPS = 10_000_000  # 10 Tb/s: a shaping above any NIC's is not one


def kind(ctx: Context, name: str, device: str | None) -> tuple[str, str | None]:
    """The interface's kind and the bridge or bond it is a port of."""
    base = f"/sys/class/net/{name}"
    master = ctx.root.readlink(f"{base}/master").rsplit("/", 1)[-1] if ctx.root.exists(f"{base}/master") else None
    number = lambda leaf: (ctx.text(f"{base}/{leaf}") or "").strip()
    devtype = re.search(r"^DEVTYPE=(\S+)", ctx.text(f"{base}/uevent") or "", re.M)
    if name == "lo" or number("type") == str(ARPHRD_LOOPBACK):
        return "loopback", master
    if device:
        return "physical", master
    for marker, found in (("bridge", "bridge"), ("bonding", "bond")):
        if ctx.root.exists(f"{base}/{marker}"):
            return found, master
    if ctx.root.exists(f"{base}/tun_flags"):
        return ("tun" if number("type") == str(ARPHRD_NONE) else "tap"), master
    if devtype:
        return DEVTYPES.get(devtype.group(1), "virtual"), master
    if number("iflink") and number("ifindex") and number("iflink") != number("ifindex"):
        return "veth", master  # a peer elsewhere and no DEVTYPE: a veth pair's end
    return "virtual", master


def addresses(ctx: Context) -> dict[str, list[str]]:
    """Each interface's addresses (`ip -json addr`); empty when they cannot be read."""
    result = ctx.run(["ip", "-json", "addr", "show"])
    if not result.ok:
        return {}
    try:
        found = loads(result.stdout, result.source)
        if not isinstance(found, list):
            raise ValueError("not a list of interfaces")
        return {
            str(i["ifname"]): [str(a["local"]) for a in i.get("addr_info", []) if "local" in a]
            for i in found
            if isinstance(i, dict) and "ifname" in i
        }
    except (ValueError, TypeError, KeyError) as e:
        ctx.warn(result.source, f"cannot parse: {e}")
        return {}


def shaped(ctx: Context, name: str) -> Fact[int] | None:
    """The rate (Mb/s) the interface is shaped to: its root htb classes' fastest, or a tbf's or
    cake's; None when it is not shaped."""
    qdisc = ctx.run(["tc", "qdisc", "show", "dev", name])
    if not qdisc.ok:
        return None
    rates = re.findall(r"qdisc (?:tbf|cake) .*?\b(?:rate|bandwidth) (\d+(?:\.\d+)?)([KMG]?)bit", qdisc.stdout)
    source = qdisc.source
    if re.search(r"qdisc htb \S+ root", qdisc.stdout):
        classes = ctx.run(["tc", "class", "show", "dev", name])
        rates = re.findall(r"class htb \S+ root .*?\brate (\d+(?:\.\d+)?)([KMG]?)bit", classes.stdout)
        source = classes.source
    scale = {"": 1e-6, "K": 1e-3, "M": 1, "G": 1e3}
    found = [round(float(v) * scale[unit]) for v, unit in rates if len(v) <= 12]  # tc prints bit/s, at most 12 digits
    return Fact(value=max(found), source=source) if found and 0 < max(found) <= MAX_MBPS else None
