"""Result files: every repeat's value kept, the profile and its attribution, flags, and the
provenance that makes two runs comparable (facts snapshot, kernel, settings, tool versions)."""

from __future__ import annotations

import hashlib
import math
import statistics
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from nastune import commands
from nastune.bench.params import Params
from nastune.bench.usage import ProfileSummary
from nastune.errors import UsageError
from nastune.jsonfile import invalid, load_versioned
from nastune.protocols import PROTOCOLS

SCHEMA = "nastune.results/1"


MAX_REPEATS = 10_000


class MetricResult(BaseModel):
    unit: str = Field(max_length=32)
    higher_is_better: bool = True
    values: list[float] = Field(max_length=MAX_REPEATS)
    limit: float | None = None  # the physical ceiling (link goodput), same unit
    flags: list[str] = []

    @field_validator("values")
    @classmethod
    def _measured(cls, v: list[float]) -> list[float]:
        """Rates, times and counts: a comparison divides by them, so each must be a finite,
        positive number, and there must be at least one."""
        if not v:
            raise UsageError("no values (an empty list of repeats)")
        for i, x in enumerate(v):
            if not math.isfinite(x) or x <= 0:
                raise UsageError(f"repeat {i + 1} is {x}: a measured value must be finite and positive")
        return v

    @field_validator("limit")
    @classmethod
    def _limit(cls, v: float | None) -> float | None:
        if v is not None and (not math.isfinite(v) or v <= 0):
            raise UsageError(f"{v} is not a physical limit")
        return v

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def spread(self) -> float:
        """Largest distance of a repeat from the median, as a fraction of it."""
        m = self.median
        return max(abs(v - m) for v in self.values) / m if m else 0.0

    @property
    def cv(self) -> float:
        return (
            statistics.stdev(self.values) / statistics.mean(self.values)
            if len(self.values) > 1 and statistics.mean(self.values)
            else 0.0
        )


class TargetRecord(BaseModel):
    """Where a workload ran, as a result file keeps it (bench.targets.Target.record): never its
    login, only what makes two runs comparable and the link's ceiling."""

    kind: str | None = Field(None, max_length=32)  # None: a file from before kinds were recorded
    url: str = Field(max_length=4096)
    client: str | None = Field(None, max_length=255)  # the inventory's client it ran from
    protection: str | None = Field(None, max_length=16)  # SMB: sign, encrypt or off
    link_bps: int | None = None
    uplink_bps: int | None = None  # toward the NAS, when it differs from link_bps
    mtu: int | None = None
    overhead: int | None = None

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        if not v:
            raise UsageError("has no url")
        return v


class LimitRecord(BaseModel):
    """One thing that limited a run (bench.limits), as a result file keeps it."""

    factor: str = Field(max_length=64)
    score: float = Field(ge=0, le=1)
    evidence: str = Field(max_length=1000)
    rules: list[str] = Field(default=[], max_length=50)


class WorkloadResult(BaseModel):
    workload: str
    target: TargetRecord
    params: Params
    metrics: dict[str, MetricResult]
    profile: ProfileSummary = {}
    attribution: str = ""  # the first of `limits`, in words
    limits: list[LimitRecord] = Field(default=[], max_length=100)  # what limited it, the strongest first
    started: str
    seconds: float
    interrupted: bool = False
    error: str | None = None  # why the workload failed after its retries (its finished repeats are kept)
    retries: list[str] = []  # every failed attempt, with its reason
    interference: list[dict[str, float]] = []  # per repeat: cores used by other processes, steal, load
    course: list[list[float]] = []  # per repeat, MB/s each second (a workload that records its course)

    @property
    def failed(self) -> bool:
        return self.error is not None

    @property
    def key(self) -> str:
        return f"{self.workload} @ {self.target.url}"


class Provenance(BaseModel):
    nastune: str
    kernel: str
    host: str | None = None  # two machines with one kernel are told apart by it
    command: list[str]
    tools: dict[str, str]
    facts_sha256: str | None = None
    facts_path: str | None = None
    settings: dict = {}
    lab_scenario: str | None = None


class Interleaving(BaseModel):
    """One side of an interleaved A/B run, and how the run judged it: compared with its other side
    (`run` the same), a result file gets the run's own verdicts, each B against its pair's A."""

    run: str
    side: Literal["A", "B"]
    alpha: float = Field(gt=0, lt=1)  # each look's share of the 5%
    noise_floor: float = Field(ge=0, lt=1)
    refused: list[str] = []  # "workload @ target metric": the A/A control found A unsteady there


class ResultSet(BaseModel):
    schema_: str = Field(SCHEMA, alias="schema")
    created: str
    label: str = ""
    provenance: Provenance
    interleaving: Interleaving | None = None
    results: list[WorkloadResult] = Field(max_length=10_000)
    model_config = {"populate_by_name": True}

    def save(self, path: Path) -> None:
        tmp = path.with_name(path.name + ".part")
        tmp.write_text(self.model_dump_json(by_alias=True, indent=1))
        tmp.replace(path)


def load(path: Path) -> ResultSet:
    """A result file, validated whole; errors name the file, then the workload and metric."""
    data = load_versioned(path, SCHEMA, "result file")
    try:
        return ResultSet.model_validate(data)
    except ValidationError as e:
        message = invalid(path, e)
        loc = e.errors()[0]["loc"]
        if len(loc) >= 4 and loc[0] == "results" and loc[2] == "metrics" and isinstance(loc[1], int):
            try:
                message += f" (workload {data['results'][loc[1]]['workload']}, metric {loc[3]})"
            except (KeyError, IndexError, TypeError):
                pass
        raise UsageError(message) from e


def tool_versions() -> dict[str, str]:
    """The version of every client tool a run may use: fio, iperf3, and each protocol's client."""
    clients = {name: list(argv) for name, argv in (p.client_version for p in PROTOCOLS.values())}
    found = {}
    for tool, argv in {"fio": ["fio", "--version"], "iperf3": ["iperf3", "--version"], **clients}.items():
        result = commands.run(argv, timeout=10)
        found[tool] = (result.stdout.strip().splitlines() or ["unknown"])[0] if result.ok else "not installed"
    return found


def settings(facts: dict) -> dict:
    """The settings that decide a NAS's speed, from a facts snapshot: what a comparison must
    see to tell a tuning (or a kernel upgrade) from noise."""
    sysctl = facts.get("sysctl", {}).get("values", {})
    keys = (
        "net.ipv4.tcp_rmem",
        "net.ipv4.tcp_wmem",
        "net.core.rmem_max",
        "net.core.wmem_max",
        "vm.dirty_ratio",
        "vm.dirty_background_ratio",
        "vm.min_free_kbytes",
        "fs.xfs.xfssyncd_centisecs",
    )
    out: dict = {"sysctl": {k: sysctl[k].get("value") for k in keys if k in sysctl}}
    out["mtu"] = {i["name"]: i["mtu"].get("value") for i in facts.get("network", {}).get("interfaces", [])}
    smb = (facts.get("smb", {}).get("config", {}) or {}).get("value") or {}
    out["samba"] = {
        k: smb.get("globals", {}).get(k)
        for k in ("aio read size", "aio write size", "socket options", "use sendfile", "sync always")
    }
    ganesha = (facts.get("nfs_server", {}).get("ganesha", {}) or {}).get("value") or {}
    out["ganesha"] = [
        {k: e.get(k) for k in ("path", "max_read", "max_write", "pref_read", "pref_write")}
        for e in ganesha.get("exports", [])
    ]
    mounts = (facts.get("mounts", {}).get("mounts", {}) or {}).get("value") or []
    out["mounts"] = {m["mountpoint"]: ",".join(m["options"]) for m in mounts if not m["pseudo"]}
    return out


def fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
