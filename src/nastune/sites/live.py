"""This host (or a directory tree standing for one) measured at a path or URL the operator
names: tuned by this process, its caches dropped here, its facts read from its root."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from nastune.bench import targets as bench_targets
from nastune.bench.targets import Target
from nastune.errors import UsageError
from nastune.facts import AREAS, Facts, Reading, collect, expand
from nastune.login import Login
from nastune.protocols import PROTOCOLS
from nastune.sites.base import Site
from nastune.sites.tuner import Here
from nastune.snapshot import open_root
from nastune.tune.journal import Journal, find
from nastune.tune.plan import Plan
from nastune.tune.system import System, for_root

DEFAULTS = ["seq-write", "seq-read", "network"]


@dataclass
class LiveSite(Site):
    target: str | None = None  # where to measure: a path or URL
    root: str = "/"
    login: Login | None = field(default=None, kw_only=True)  # the share's, for a protocol that has logins

    def __post_init__(self) -> None:
        self.name = "this host" if self.root == "/" else f"the tree {self.root}"
        self._system: System | None = None

    def facts(self, reading: Reading | None = None, areas: Sequence[str] = AREAS) -> Facts:
        """This host's facts, or a tree's or a snapshot's (unpacked for the reading)."""
        wanted = expand(areas)  # a bad area is refused before a snapshot is unpacked
        with open_root(self.root) as root:
            return collect(root, wanted, reading)

    def system(self) -> System:
        if self._system is None:
            self._system = for_root(self.root)
        return self._system

    def tuner(self) -> Here:
        return Here(self.system())

    def system_for(self, plan: Plan) -> System:
        """A plan the lab wrote, applied on this host, is applied to the running lab."""
        if plan.lab and self.root == "/":
            from nastune.sites.lab.system import running  # lazy: only a lab's plan needs the lab

            return running()
        return self.system()

    def journal(self, path: str | None) -> Journal:
        """On this host, the running lab's journals (they live here) are searched too."""
        lab = None
        if self.root == "/":
            from nastune.sites.lab.system import if_running  # lazy: the NAS agent's verify never loads the lab

            lab = if_running()
        return find(self.system(), path, lab)

    def targets(self, target: str | None) -> list[Target]:
        # a target kind (an objective's term names one) means the target this site measures
        spec = self.target if target is None or target in bench_targets.KINDS else target
        if not spec:
            raise UsageError("say where to measure: --target URL|PATH (or --lab, or --inventory FILE)")
        found = bench_targets.parse(spec)
        has_logins = found.kind in PROTOCOLS and PROTOCOLS[found.kind].login_var
        return [replace(found, login=self.login) if has_logins else found]

    def default_workloads(self) -> list[str]:
        return list(DEFAULTS)
