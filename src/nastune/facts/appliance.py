"""NAS appliances that write their file servers' configuration from a database of their own:
TrueNAS SCALE (its middleware renders smb4.conf, exports, nfs.conf, fstab and applies sysctl
tunables from its configuration database: truenas/middleware, plugins/etc.py and etc_files/;
it creates and updates its datasets through its own API: plugins/pool_/dataset.py)
and OpenMediaVault (its Salt states deploy smb.conf, exports, fstab and the network from
config.xml on every apply in its web UI: openmediavault/openmediavault, srv/salt/omv/deploy/).
A file nastune edits there is overwritten at the appliance's next apply, update or reboot, and a
rollback would then restore a file the appliance owns; so each such change is made in the
appliance's own UI, and nastune says where."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from nastune.facts.context import Context
from nastune.facts.model import Fact
from nastune.root import Root


@dataclass(frozen=True)
class Appliance:
    name: str  # as facts and plans name it
    title: str  # as a person does
    markers: tuple[str, ...]  # files only this appliance has, any one of them (a snapshot keeps their presence)
    package: str  # its Debian package, installed per dpkg's status
    version: tuple[str, ...]  # a file holding its version, or a command printing it
    owns: dict[str, str]  # knob kind -> where the appliance's UI sets what that knob writes
    boot: str | None  # what keeps a setting across reboots there, when nastune's boot files would not last
    source: str

    def where(self, kind: str, target: str = "", key: str | None = "", new: object = "") -> str | None:
        """Where the appliance sets what a change to a `kind` knob writes (None: not its own),
        for the change of `key` of `target` to `new` where the place names them."""
        place = self.owns.get(kind)
        if place is None:
            return None
        field, value = _api_field(key or "", new)
        for name, said in {"target": target, "field": field, "value": value}.items():
            place = place.replace(f"<{name}>", said)  # <...>: the places hold JSON's braces
        return place

    def refusal(self, kind: str, target: str = "", key: str | None = "", new: object = "") -> str | None:
        """Why a change to a `kind` knob is left to the appliance's UI (None: nastune may make it)."""
        where = self.where(kind, target, key, new)
        if where is None:
            return None
        return (
            f"{self.title} writes this from its own configuration database, so an edit is lost at its next "
            f"apply; set it in {where}"
        )


TRUENAS_SCALE = Appliance(
    name="truenas-scale",
    title="TrueNAS SCALE",
    markers=("/usr/bin/midclt", "/data/freenas-v1.db"),  # its middleware's client, its configuration database
    package="truenas",
    version=("/etc/version",),
    owns={
        "samba": "the SMB service's auxiliary parameters (global: `midclt call smb.update '{\"smb_options\": ...}'`; "
        "a share: Shares > SMB > Edit > Advanced Options > Auxiliary Parameters)",
        "nfs_export": "Shares > NFS > Edit (its networks, hosts and maproot/mapall options)",
        "nfs_client_mount": "Datasets (TrueNAS mounts its pools itself; /etc/fstab is rendered by its middleware)",
        "nfsd_threads": "System Settings > Services > NFS > Number of threads",
        "mtu": "Network > Interfaces > Edit > MTU",
        # its middleware creates and updates datasets (and validates their properties) through its
        # own API; a `zfs set` behind its back works but bypasses both
        "zfs_property": "Datasets > <target> > Edit > Advanced Options, or `midclt call pool.dataset.update "
        '<target> \'{"<field>": "<value>"}\'`',
    },
    boot="System Settings > Advanced > Sysctl for a sysctl or a ZFS module parameter (a tunable of type ZFS: "
    '`midclt call tunable.create \'{"type": "ZFS", "var": ..., "value": ...}\'`, which TrueNAS also writes '
    "into its initramfs), and Init/Shutdown Scripts (a post-init command) for the rest",
    source="truenas/middleware: src/middlewared/middlewared/plugins/etc.py; TrueNAS SCALE documentation, "
    "https://www.truenas.com/docs/scale/",
)

OPENMEDIAVAULT = Appliance(
    name="openmediavault",
    title="OpenMediaVault",
    markers=("/etc/openmediavault/config.xml", "/etc/default/openmediavault"),  # its database, its settings
    package="openmediavault",
    version=("dpkg-query", "-W", "-f", "${Version}", "openmediavault"),
    owns={
        "samba": "Services > SMB/CIFS > Settings > Extra options (global) or Shares > Edit > Extra options",
        "nfs_export": "Services > NFS > Shares > Edit > Extra options",
        "nfs_client_mount": "Storage > File Systems (OMV_FSTAB_MNTOPS_* in /etc/default/openmediavault)",
        "nfsd_threads": "Services > NFS > Settings > Number of servers",
        "mtu": "Network > Interfaces > Edit > MTU",
    },
    boot=None,  # sysctl.d and systemd units of nastune's own are files OpenMediaVault leaves alone
    source="openmediavault/openmediavault: deb/openmediavault/srv/salt/omv/deploy/; OpenMediaVault documentation, "
    "https://docs.openmediavault.org/",
)

APPLIANCES = {a.name: a for a in (TRUENAS_SCALE, OPENMEDIAVAULT)}


def _api_field(key: str, new: object) -> tuple[str, str]:
    """A ZFS property as TrueNAS's pool.dataset API names it and spells its value (dedup is
    `deduplication`; values are upper case, a recordsize as zfs writes it)."""
    field = {"dedup": "deduplication"}.get(key, key)
    return field, str(new) if key == "recordsize" else str(new).upper()


class Detected(BaseModel):
    """The appliance this system is, and its version where it says."""

    name: str
    title: str
    version: str | None = None


def collect(ctx: Context) -> Fact[Detected] | None:
    """The appliance this root is, by any of its files or by its package as dpkg installed it (a
    file's presence is read, not its content: config.xml holds the appliance's users) (None: a
    plain Linux NAS)."""
    for appliance in APPLIANCES.values():
        candidates = [*appliance.markers, f"/var/lib/dpkg/info/{appliance.package}.list"]
        marker = next((m for m in candidates if ctx.root.exists(m)), None)
        if marker is None:
            continue
        return Fact(
            value=Detected(name=appliance.name, title=appliance.title, version=_version(ctx, appliance)),
            source=marker,
        )
    return None


def _version(ctx: Context, appliance: Appliance) -> str | None:
    if len(appliance.version) == 1:
        text = ctx.text(appliance.version[0])
        return text.strip() or None if text else None
    result = ctx.run(appliance.version)
    return result.stdout.strip() or None if result.ok else None


def of(detected: Fact[Detected] | None) -> Appliance | None:
    """The appliance a fact names (None: none, or not known)."""
    value = detected.known_value if detected else None
    return APPLIANCES.get(value.name) if value else None


def detect(root: Root) -> Appliance | None:
    """The appliance of a root, for the tuning engine (which judges a plan by the system it is
    applied to, not by facts read elsewhere)."""
    return of(collect(Context(root)))
