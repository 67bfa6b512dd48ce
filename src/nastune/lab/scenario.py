"""Scenarios: plain TOML files describing a NAS to build (users copy and edit them)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

HERE = Path(__file__).parent / "scenarios"
_SIZE = re.compile(r"^(\d+)([KMGT]?)i?B?$", re.IGNORECASE)
_RATE = re.compile(r"^(\d+(?:\.\d+)?)(k|m|g)?bit$", re.IGNORECASE)


def size_bytes(text: str | int) -> int:
    if isinstance(text, int):
        return text
    m = _SIZE.match(text.strip())
    if not m:
        raise ValueError(f"not a size: {text!r} (use e.g. 512M, 4G)")
    return int(m.group(1)) << (10 * " KMGT".index(m.group(2).upper() or " "))


def rate_bits(text: str) -> int:
    m = _RATE.match(text.strip())
    if not m:
        raise ValueError(f"not a rate: {text!r} (use e.g. 100mbit, 1gbit)")
    return int(float(m.group(1)) * {None: 1, "k": 1e3, "m": 1e6, "g": 1e9}[(m.group(2) or "").lower() or None])


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Network(Strict):
    rate: str = "1gbit"
    mtu: int = Field(1500, ge=576, le=65535)
    tcp_rmem: str | None = None  # per-namespace sysctls of the nas host
    tcp_wmem: str | None = None

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


class Storage(Strict):
    size: str = "3G"
    external_log: bool = False
    log_size: str = "64M"
    mount_options: list[str] = []
    aging: Aging | None = None

    @field_validator("size", "log_size")
    @classmethod
    def _size(cls, v: str) -> str:
        size_bytes(v)
        return v

    @field_validator("log_size")
    @classmethod
    def _log(cls, v: str) -> str:
        if size_bytes(v) < 64 << 20:
            raise ValueError("an XFS log must be at least 64M (mkfs.xfs refuses smaller)")
        return v


class Limits(Strict):
    cpus: float | None = Field(None, gt=0)
    memory: str | None = None
    read_bps: str | None = None
    write_bps: str | None = None
    read_iops: int | None = Field(None, gt=0)
    write_iops: int | None = Field(None, gt=0)


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


def load(name_or_file: str) -> Scenario:
    """A built-in scenario by name, or a TOML file; errors name the file and field."""
    path = Path(name_or_file)
    if not path.suffix:
        path = HERE / f"{name_or_file}.toml"
        if not path.exists():
            choices = ", ".join(sorted(p.stem for p in HERE.glob("*.toml")))
            raise ValueError(f"no scenario {name_or_file!r}; built in: {choices}; or give a .toml file")
    try:
        data = tomllib.loads(path.read_text())
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror}") from e
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{path}: {e}") from e
    data.setdefault("name", path.stem)
    try:
        return Scenario.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"{path}: field {field}: {first['msg']}") from e
