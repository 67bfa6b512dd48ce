"""A Site: where nastune works. Every workflow (optimize, ab, stress, check, autotune, bench)
takes one and asks it, never `if lab`, for what differs between this live host, an inventory's
NAS measured from its clients, and the lab: the facts, the tuner that applies and rolls back,
the targets and (workload, target) pairs, dropping caches, the profiler's source, the servers
whose work is the measurement, and the provenance of a run."""

from __future__ import annotations

import json
import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from nastune import __version__
from nastune import rules as knowledge
from nastune.bench import targets as bench_targets
from nastune.bench.results import Provenance, fingerprint, settings, tool_versions
from nastune.bench.selection import choose, known
from nastune.bench.targets import Target
from nastune.errors import UsageError
from nastune.facts import AREAS, Facts, Reading
from nastune.rules.model import Finding
from nastune.tune.journal import Journal, find

if TYPE_CHECKING:
    from nastune.bench.profile import Profiler
    from nastune.bench.workload_base import Workload
    from nastune.sites.tuner import Tuner
    from nastune.tune.plan import Plan
    from nastune.tune.system import System

Pairs = list[tuple["Workload", Target]]


class Site(ABC):
    name = ""  # for messages: "this host", "NAS nas (10.0.0.5)", "the lab"
    # The NAS shares this machine's kernel with its clients (the lab's namespaces): settings of
    # the whole machine (vm.*, fs.*, kernel.*) are left out of its plans and searches.
    shared_kernel = False
    scenario: str | None = None  # the lab scenario it was built from, for provenance

    @abstractmethod
    def facts(self, reading: Reading | None = None, areas: Sequence[str] = AREAS) -> Facts:
        """The NAS's facts of `areas`, read where the NAS is, as `reading` says (fragmentation;
        the NAS's address and link rate, which the site fills in where it knows them)."""

    def client_facts(self) -> dict[str, Facts]:
        """The facts of each client that runs nastune, by name, read there (none: the site's
        clients are only measured from)."""
        return {}

    def findings(self, facts: Facts, only: list[str] | None = None) -> list[Finding]:
        """Every rule on the NAS's `facts`, and the rules true of clients on each client's own,
        the most severe first."""
        found = knowledge.evaluate(facts, only=only)
        for name, client in self.client_facts().items():
            found += knowledge.evaluate(client, only=only, client=name)
        return knowledge.ranked(found)

    @abstractmethod
    def tuner(self) -> Tuner:
        """Who applies, verifies and rolls back a plan on the NAS."""

    def system(self) -> System:
        """The System this process changes to tune the NAS (apply, verify, rollback, confirm)."""
        raise UsageError(f"{self.name} is tuned by nastune on the NAS: --inventory FILE")

    def system_for(self, plan: Plan) -> System:
        """The System a plan is applied to: the site's own (this host may hold a plan the lab
        wrote: LiveSite answers with the lab's)."""
        return self.system()

    def journal(self, path: str | None) -> Journal:
        """The journal a tuning command acts on: `path`, or the newest applied to the site;
        TuneError says none is there."""
        return find(self.system(), path)

    @abstractmethod
    def targets(self, target: str | None) -> list[Target]:
        """Where the workloads run: `target` (a name or URL, as the site takes it) or its defaults."""

    @abstractmethod
    def default_workloads(self) -> list[str]:
        """What a run measures when no workload is named."""

    def pairs(self, target: str | None, names: list[str]) -> Pairs:
        """Each named workload on every target of the site that supports it; ValueError says
        what is unknown or unsupported."""
        known(names)  # an unknown workload is named before anything is reached
        return choose(self.targets(target), names)

    def stress(self, target: str | None, names: list[str]) -> tuple[Pairs, list[Target]]:
        """The measuring client's pairs and the targets of the clients that load the NAS."""
        raise UsageError("--stress needs clients that load the NAS: --inventory FILE, or --lab with --clients")

    def find(self, url: str) -> Target:
        """A target a stored run names by URL (check against a baseline), as it is now."""
        return bench_targets.parse(url)

    def stamp(self, plan: Plan) -> Plan:
        """The plan as written for this site (the lab's plans say so, for a later `apply`)."""
        return plan

    # What the runner asks of the site it measures (bench.runner.Measured).

    def drop_caches(self) -> None:
        from nastune.bench import runner  # lazy: the runner is a measuring site's; a NAS's nastune serve never loads it

        runner.drop_caches()

    def servers(self, target: Target) -> list[int]:
        """The processes whose work is the measurement (their CPU is not other load)."""
        return [target.server_pid] if target.server_pid else []

    def profiler(self, target: Target, interval: float) -> Profiler:
        from nastune.bench.profile import Profiler  # lazy: as the runner, a measuring site's

        return Profiler(net_pid=target.server_pid, interval=interval)

    def host(self, facts: Facts) -> tuple[str, str]:
        """The measured system's kernel and host name (`facts`: its facts, read once)."""
        return os.uname().release, os.uname().nodename

    def provenance(self, out: Path) -> Provenance:
        """What makes two runs comparable: the NAS's facts (written beside `out`), kernel, host,
        settings and tool versions."""
        facts = self.facts()
        text = facts.to_json()
        facts_path = out.with_name(out.stem + ".facts.json")
        facts_path.write_text(text)
        kernel, host = self.host(facts)
        return Provenance(
            nastune=__version__,
            kernel=kernel,
            host=host,
            command=sys.argv,
            tools=tool_versions(),
            facts_sha256=fingerprint(text),
            facts_path=str(facts_path),
            settings=settings(json.loads(text or "{}")),
            lab_scenario=self.scenario,
        )
