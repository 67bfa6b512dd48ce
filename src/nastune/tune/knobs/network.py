"""Knobs of the network interfaces: MTU (the whole segment must agree), ethtool settings, and
the rate of an htb shaping class."""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from nastune.facts import Facts
from nastune.facts.network import ethtool_coalesce, ethtool_features, ethtool_rings, htb_class_rate
from nastune.rules import query
from nastune.rules.model import Change
from nastune.tune.knobs.base import Knob, _int_range, norm
from nastune.tune.knobs.domains import Choice
from nastune.tune.knobs.kernel import FileValue
from nastune.tune.knobs.tunable import Tunable
from nastune.tune.system import System, TuneError


class Mtu(FileValue):
    doc = "an interface's MTU (target: the interface)"
    persists = "unit"
    kind, phase, network = "mtu", 90, True
    disruption = "the link's MTU changes: traffic pauses a moment; every host and switch port on it must match"

    def validate(self, change: Change) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_.:@-]{1,15}", str(change.target or "")) or change.target in (".", ".."):
            raise TuneError(f"mtu: {str(change.target)[:40]!r} is not an interface name")
        _int_range(change, 68, 65535, "mtu")

    def path(self, change: Change) -> str:
        return f"/sys/class/net/{change.target}/mtu"

    def manual(self, change: Change, value: Any) -> str:
        return f"ip link set dev {shlex.quote(change.target)} mtu {value}"

    def read(self, system: System, change: Change) -> str | None:
        if system.own_network:
            data = json.loads(system.run_net(["ip", "-j", "link", "show", "dev", change.target]))
            return norm(data[0]["mtu"])
        return super().read(system, change)

    def write(self, system: System, change: Change, value: Any) -> None:
        if not (system.own_network or system.live):
            return super().write(system, change, value)
        system.set_mtu(change.target, int(value), self.label(change))


class Ethtool(Knob):
    phase, network, needs_live = 90, True, True
    disruption = "the NIC reconfigures: traffic may pause a moment"
    flag = ""

    def manual(self, change: Change, value: Any) -> str:
        return shlex.join(["ethtool", self.flag, change.target, change.key or "", str(value)])

    def read(self, system: System, change: Change) -> str | None:
        raise NotImplementedError

    def write(self, system: System, change: Change, value: Any) -> None:
        system.run_net(["ethtool", self.flag, change.target, self.key(change), str(value)], what=self.label(change))


class EthtoolFeature(Ethtool):
    doc = "a NIC offload feature (target: interface, key: feature)"
    persists = "unit"
    kind, flag = "ethtool_feature", "-K"

    def validate(self, change: Change) -> None:
        if str(change.new) not in ("on", "off"):
            raise TuneError(f"ethtool_feature {change.target} {change.key}: {change.new!r} must be on or off")

    def read(self, system: System, change: Change) -> str | None:
        features = ethtool_features(system.run_net(["ethtool", "--json", "-k", change.target]))
        feature = features.get(self.key(change))
        if feature is None:
            raise TuneError(f"{self.label(change)}: the NIC has no feature {change.key!r}")
        return "on" if feature.active else "off"


class EthtoolCoalesce(Ethtool):
    doc = "a NIC coalescing parameter (target: interface, key: parameter)"
    persists = "unit"
    kind, flag = "ethtool_coalesce", "-C"

    def read(self, system: System, change: Change) -> str | None:
        c = ethtool_coalesce(system.run_net(["ethtool", "-c", change.target]))
        if change.key in ("adaptive-rx", "adaptive-tx"):
            value = c.adaptive_rx if change.key == "adaptive-rx" else c.adaptive_tx
            return None if value is None else ("on" if value else "off")
        return norm(c.params.get(self.key(change)))


class EthtoolRing(Ethtool):
    doc = "a NIC ring size (target: interface, key: rx or tx)"
    persists = "unit"
    kind, flag = "ethtool_ring", "-G"

    def validate(self, change: Change) -> None:
        _int_range(change, 1, 1 << 20, "ethtool_ring")

    def read(self, system: System, change: Change) -> str | None:
        return norm(ethtool_rings(system.run_net(["ethtool", "-g", change.target])).current.get(self.key(change)))


class HtbRate(Knob):
    doc = (
        "the rate and ceiling of an htb traffic-shaping class, in bit/s (target: the interface, key: the "
        "class id, e.g. 1:10): what a shaped uplink or a replication limit allows"
    )
    persists = "unit"
    kind, phase, network, needs_live = "htb_rate", 90, True, True
    disruption = "the link's shaping changes at once"

    def validate(self, change: Change) -> None:
        _int_range(change, 8000, 400 * 10**9, "htb_rate")
        if not re.fullmatch(r"[0-9a-f]{1,4}:[0-9a-f]{1,4}", str(change.key or "")):
            raise TuneError(f"htb_rate {change.target}: key {str(change.key)[:20]!r} is not a class id such as 1:10")

    def manual(self, change: Change, value: Any) -> str:
        rate = f"{value}bit"
        return shlex.join(["tc", "class", "change", "dev", change.target, "classid", change.key or "", "htb"]) + (
            f" rate {rate} ceil {rate}"
        )

    def read(self, system: System, change: Change) -> str | None:
        shown = system.run_net(["tc", "class", "show", "dev", change.target, "classid", self.key(change)])
        return norm(htb_class_rate(shown, self.key(change)))

    def write(self, system: System, change: Change, value: Any) -> None:
        rate = f"{value}bit"
        argv = [
            "tc",
            "class",
            "change",
            "dev",
            change.target,
            "classid",
            self.key(change),
            "htb",
            "rate",
            rate,
            "ceil",
            rate,
        ]
        system.run_net(argv, what=self.label(change))


# What autotune searches among the values of these knobs (tune/knobs/tunable.py)


class MtuRange(Tunable):
    def find(self, facts: Facts) -> tuple[object, tuple[str, ...], dict] | None:
        found = [i for i in query.links(facts) if i.mtu.known]
        return (found[0].mtu.value, tuple(i.name for i in found), {}) if found else None

    def changes(self, target: str, value: Any, context: dict) -> list[Change]:
        return [Change(knob="mtu", target=target, new=value)]


TUNABLES = [
    MtuRange("mtu", "the storage link's MTU (every host on the segment must accept it)", Choice((1500, 9000))),
]
