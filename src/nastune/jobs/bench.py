"""bench's workflow: workloads measured on a site, alone or (stress) while other clients load it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from nastune.bench import runner
from nastune.bench.params import DEFAULTS, Params
from nastune.bench.results import ResultSet
from nastune.bench.sizing import sized
from nastune.jobs import stress
from nastune.sites.base import Site

UNDER_LOAD = ["seq-write", "seq-read"]  # what a stressed client measures unless told


@dataclass
class BenchSpec:
    target: str | None
    workloads: list[str]  # empty: the site's defaults
    size: int | None  # None: sized by the link
    files: int
    repeats: int
    out: Path
    label: str = ""
    profile: bool = True  # sample the server during the run
    stress: bool = False  # the first client measures, idle and while the others load the NAS
    dir_files: int = DEFAULTS["dir_files"]  # the files of big-dir's directory
    sustained: int = DEFAULTS["sustained_bytes"]  # the bytes of a sustained write


@dataclass
class Measured:
    results: ResultSet
    idle_out: Path | None = None  # stress: the idle run's file
    degradation: list[dict] | None = None  # stress: how many times worse each metric got


def run(spec: BenchSpec, site: Site, console: Console) -> Measured:
    names = spec.workloads or (UNDER_LOAD if spec.stress else site.default_workloads())
    params: Params = {**DEFAULTS, "files": spec.files, "dir_files": spec.dir_files, "sustained_bytes": spec.sustained}
    if spec.size is not None:
        params["size"] = spec.size
    params = sized(params, [t for _, t in site.pairs(spec.target, names)], console.print)
    if spec.stress:
        pairs, loaders = site.stress(spec.target, names)
        idle, loaded, idle_out = stress.run(pairs, loaders, params, spec.repeats, spec.out, site, console=console)
        return Measured(loaded, idle_out, stress.degradation(idle, loaded))
    pairs = site.pairs(spec.target, names)
    return Measured(runner.run(pairs, params, spec.repeats, spec.out, site, spec.label, console, spec.profile))
