"""Scenarios: plain TOML files describing a NAS to build (users copy and edit them)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from nastune.conf import safe
from nastune.errors import UsageError
from nastune.jsonfile import invalid, read_text
from nastune.units import rate_bits, size_bytes

HERE = Path(__file__).parent / "scenarios"


def _sized(v: str) -> str:
    size_bytes(v)  # refused with the reason when it is no size
    return v


Size = Annotated[str, AfterValidator(_sized)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Network(Strict):
    rate: str = "1gbit"
    mtu: int = Field(1500, ge=576, le=65535)
    tcp_rmem: str | None = None  # per-namespace sysctls of the nas host
    tcp_wmem: str | None = None

    @field_validator("tcp_rmem", "tcp_wmem")
    @classmethod
    def _triple(cls, v: str | None) -> str | None:
        if v is not None and not re.fullmatch(r"[0-9]{1,12}[ \t]+[0-9]{1,12}[ \t]+[0-9]{1,12}", v):
            raise UsageError("three whole numbers (min default max), e.g. '4096 131072 6291456'")
        return v

    @field_validator("rate")
    @classmethod
    def _rate(cls, v: str) -> str:
        rate_bits(v)
        return v


class Aging(Strict):
    """An aged data set: files written in small interleaved synchronous appends."""

    files: int = Field(4, ge=1, le=64)
    file_size: str = "64M"
    chunk: str = "64K"


class Files(Strict):
    """A big directory in the share: `count` empty files in `directory`; with `mac`, also the
    traces a Mac's Finder leaves there (an AppleDouble ._ file for every tenth, a .DS_Store)."""

    directory: str = Field("scans", pattern=r"^[a-z0-9][a-z0-9-]{0,31}$")
    count: int = Field(50_000, ge=1, le=200_000)
    mac: bool = False


def _zfs_properties(v: dict[str, str]) -> dict[str, str]:
    for key, value in v.items():
        safe.check(safe.ZFS_PROPERTY, key, "ZFS property")
        safe.check(safe.ZFS_VALUE, value, f"ZFS property {key[:40]!r}")
    return v


class Dataset(Strict):
    """A dataset of the lab's pool: its name under the pool, the properties it is created with
    (none: OpenZFS's defaults, or what it inherits), where it is mounted (None: under the pool's
    mountpoint), and how it is shared: `data` makes it the lab's measured share (mounted at
    /srv/data, the SMB share `data` and the NFS export the clients mount); `shared` also shares it
    over SMB (as [its name]) and NFS."""

    name: str
    properties: dict[str, str] = {}
    data: bool = False
    shared: bool = False

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return safe.check(safe.ZFS_NAME, v, "dataset name")

    @field_validator("properties")
    @classmethod
    def _properties(cls, v: dict[str, str]) -> dict[str, str]:
        return _zfs_properties(v)


class Zfs(Strict):
    """The kernel lab's data on a ZFS pool (`lab up --kernel`): `disks` virtual disks of
    `disk_size` in one vdev of `layout`, each held to `iops` I/O operations a second by QEMU (a
    spinning disk does 100-200); a separate log device (SLOG) of `log_size`, unthrottled (a
    flash device beside the disks), in the pool with `log`, else present and unused; the pool
    created with `properties` (its root dataset's, `zpool create -O`), and its datasets."""

    pool: str = "tank"
    layout: Literal["mirror", "raidz", "raidz2"] = "raidz"
    disks: int = Field(3, ge=2, le=6)
    disk_size: Size = "1G"
    iops: int | None = Field(None, ge=10, le=100_000)
    log: bool = False
    log_size: Size = "256M"
    properties: dict[str, str] = {}
    datasets: list[Dataset] = []

    @field_validator("pool")
    @classmethod
    def _pool(cls, v: str) -> str:
        return safe.check(safe.ZFS_NAME, v, "pool name")

    @field_validator("properties")
    @classmethod
    def _properties(cls, v: dict[str, str]) -> dict[str, str]:
        return _zfs_properties(v)

    @field_validator("datasets")
    @classmethod
    def _one_data(cls, v: list[Dataset]) -> list[Dataset]:
        if sum(d.data for d in v) != 1:
            raise UsageError("exactly one dataset is the lab's measured share (data = true)")
        return v


class Storage(Strict):
    size: Size = "3G"
    external_log: bool = False
    log_size: Size = "64M"
    mount_options: list[str] = []
    aging: Aging | None = None
    files: Files | None = None
    zfs: Zfs | None = None  # the kernel lab's data on a ZFS pool instead of an XFS disk

    @field_validator("mount_options")
    @classmethod
    def _options(cls, v: list[str]) -> list[str]:
        return [safe.check(safe.MOUNT_OPTION, o, "mount option") for o in v]

    @field_validator("log_size")
    @classmethod
    def _log(cls, v: str) -> str:
        if size_bytes(v) < 64 << 20:
            raise UsageError("an XFS log must be at least 64M (mkfs.xfs refuses smaller)")
        return v


class Limits(Strict):
    cpus: float | None = Field(None, gt=0, le=1024, allow_inf_nan=False)
    memory: str | None = None
    read_bps: str | None = None
    write_bps: str | None = None

    @field_validator("memory", "read_bps", "write_bps")
    @classmethod
    def _size(cls, v: str | None) -> str | None:
        if v is not None:
            size_bytes(v)
        return v

    read_iops: int | None = Field(None, gt=0)
    write_iops: int | None = Field(None, gt=0)


class TunedProfile(Strict):
    """A site's own TuneD profile on the kernel lab's NAS, as an operator writes one in
    /etc/tuned/<profile>/tuned.conf and makes active: its sysctls, and whether TuneD applies
    /etc/sysctl.d again after them (reapply_sysctl in tuned-main.conf; off, TuneD's values win)."""

    profile: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,31}$")] = "site"
    sysctl: dict[Annotated[str, Field(pattern=r"^[a-z][a-z0-9_.]{0,127}$")], int] = {}
    reapply_sysctl: bool = True


class Guest(Strict):
    """What only the kernel lab (`lab up --kernel`) has: the client's mount options, as its
    /etc/fstab gives them; the kernel NFS server's threads (/etc/nfs.conf); the NUMA node whose
    CPUs serve the NAS NIC's interrupts (None: where the kernel puts them); and a delay the
    client's packets wait (netem in the guest, whose kernel has it: a campus network's round
    trip, which the RPC sizes of NFS feel); and TuneD, where the site runs it."""

    nfs_mount: str = "vers=3"
    smb_mount: str = "vers=3.1.1"
    nfsd_threads: int = Field(8, ge=1, le=1024)
    irq_node: int | None = Field(None, ge=0, le=1)
    delay: str | None = Field(None, pattern=r"^[0-9]{1,3}(\.[0-9]{1,3})?(us|ms)$")
    tuned: TunedProfile | None = None  # TuneD running with this profile active; None: installed, not running

    @field_validator("nfs_mount", "smb_mount")
    @classmethod
    def _mount(cls, v: str) -> str:
        for option in v.split(","):
            for part in option.split("=", 1):
                safe.check(safe.MOUNT_OPTION, part, "mount option")
        return v


class Scenario(Strict):
    name: str
    description: str = ""
    clients: int = Field(1, ge=1, le=8)
    network: Network = Network()
    storage: Storage = Storage()
    samba: dict[str, str] = {}  # [global] parameters
    samba_share: dict[str, str] = {}
    ganesha_export: dict[str, int | str] = {}
    limits: Limits | None = None
    guest: Guest = Guest()
    # what the clients require of their SMB sessions, as an operator's do (Windows 11 24H2: sign)
    client_protection: Literal["sign", "encrypt", "off"] | None = None

    @field_validator("samba", "samba_share")
    @classmethod
    def _samba(cls, v: dict[str, str]) -> dict[str, str]:
        for key, value in v.items():
            safe.check(safe.SAMBA_KEY, key, "Samba parameter")
            safe.check(safe.SAMBA_VALUE, value, f"Samba parameter {key[:40]!r}")
        return v

    @field_validator("ganesha_export")
    @classmethod
    def _ganesha(cls, v: dict[str, int | str]) -> dict[str, int | str]:
        for key, value in v.items():
            safe.check(safe.GANESHA_KEY, key, "Ganesha parameter")
            safe.check(safe.GANESHA_VALUE, value, f"Ganesha parameter {key[:40]!r}")
        return v


def load(name_or_file: str, network: dict | None = None, **fields: object) -> Scenario:
    """A built-in scenario by name, or a TOML file; errors name the file and field. `network` and
    `fields` replace the file's values (lab up's --rate, --mtu, --clients), checked as they are."""
    path = Path(name_or_file)
    if not path.suffix:
        path = HERE / f"{name_or_file}.toml"
        if not path.exists():
            choices = ", ".join(sorted(p.stem for p in HERE.glob("*.toml")))
            raise UsageError(f"no scenario {name_or_file!r}; built in: {choices}; or give a .toml file")
    try:
        data = tomllib.loads(read_text(path, limit=1 << 20))
    except RecursionError:
        raise UsageError(f"{path}: nested too deeply") from None
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{path}: {e}") from e
    data.setdefault("name", path.stem)
    data.update(fields)
    if network:
        data["network"] = {**data.get("network", {}), **network}
    try:
        return Scenario.model_validate(data)
    except ValidationError as e:
        raise UsageError(invalid(path, e)) from e
