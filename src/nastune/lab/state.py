"""The lab's record of what it created, written before each thing is created, so that
`down` can remove exactly that (and nothing else) after any failure or kill."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError

from nastune.errors import UsageError
from nastune.lab.scenario import Scenario

DEFAULT_DIR = Path(os.environ.get("NASTUNE_LAB_DIR", "/var/lib/nastune/lab"))


class Process(BaseModel):
    kind: Literal["process"] = "process"
    name: str
    argv: list[str]
    log: str
    pid: int | None = None  # None until started
    start: int | None = None  # its start time in clock ticks: a reused pid is not ours
    env: dict[str, str] | None = None


class Cgroup(BaseModel):
    kind: Literal["cgroup"] = "cgroup"
    path: str


class Image(BaseModel):
    kind: Literal["image"] = "image"
    path: str


class Loop(BaseModel):
    kind: Literal["loop"] = "loop"
    image: str  # the image it is attached to (its device is found from it at detach)


class Mounted(BaseModel):
    kind: Literal["mount"] = "mount"
    path: str


class Netns(BaseModel):
    kind: Literal["netns"] = "netns"
    name: str


class Link(BaseModel):
    kind: Literal["link"] = "link"
    name: str


Resource = Annotated[Process | Cgroup | Image | Loop | Mounted | Netns | Link, Field(discriminator="kind")]
R = TypeVar("R", Process, Cgroup, Image, Loop, Mounted, Netns, Link)


class Disk(BaseModel):
    """The data file system the lab built: its device, its log's, where it is mounted, the share."""

    device: str
    log_device: str = ""
    mountpoint: str
    share: str


class Record(BaseModel):
    version: int = 1
    status: Literal["absent", "building", "failed", "up"] = "absent"
    scenario: Scenario | None = None
    dir: str | None = None
    storage: Disk | None = None
    targets: dict[str, str] = {}
    clients: int | None = None
    resources: list[Resource] = []


class State:
    def __init__(self, directory: Path = DEFAULT_DIR):
        self.dir = directory
        self.path = directory / "state.json"
        self.record = Record()
        if self.path.exists():
            try:
                self.record = Record.model_validate_json(self.path.read_text())
            except (ValidationError, ValueError) as e:
                raise UsageError(f"{self.path}: corrupt lab state ({str(e)[:300]}); remove the lab by hand") from e

    @property
    def exists(self) -> bool:
        return self.path.exists()

    @property
    def up(self) -> bool:
        return self.record.status == "up"

    @property
    def scenario(self) -> Scenario:
        """The scenario the lab was built from (UsageError when the record has none)."""
        if self.record.scenario is None:
            raise UsageError(f"{self.path}: the lab records no scenario: take it down and up again")
        return self.record.scenario

    @property
    def disk(self) -> Disk:
        if self.record.storage is None:
            raise UsageError(f"{self.path}: the lab records no storage: take it down and up again")
        return self.record.storage

    def of(self, kind: type[R]) -> list[R]:
        return [r for r in self.record.resources if isinstance(r, kind)]

    def save(self) -> None:
        """Atomically, durably: a kill at any point leaves the old or the new file."""
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w") as f:
            f.write(self.record.model_dump_json(indent=1))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def add(self, resource: R) -> R:
        """Record a resource before creating it."""
        self.record.resources.append(resource)
        self.save()
        return resource

    def remove(self, resource: Resource) -> None:
        self.record.resources.remove(resource)
        self.save()

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)
        self.record = Record()
