"""A result set in Go's benchmark format (golang.org/design/14313-benchmark-format, with the
unit metadata of golang/go#43744), so that benchstat and the other tools of that ecosystem read
nastune's runs: `key: value` configuration lines (what identifies the system: nastune's version,
kernel, host, lab scenario, tools), one `Unit` line per unit saying which way is better, then
one `Benchmark<Name> 1 <value> <unit>` line per repeat. The run's label and time go in comment
lines, which the format ignores: benchstat puts results of different configurations in
different tables, and a before and an after run must meet in one (after a kernel upgrade,
`benchstat -ignore kernel` brings them together).

    nastune export --format benchstat before.json > before.txt
    nastune export --format benchstat after.json > after.txt
    benchstat before.txt after.txt

A benchmark's name carries the workload and, as `key=value` parts, the target, its
parameters and, where the metric says more than its unit, the metric. `/` separates the parts,
so a value's own `/` (a target URL's) is written `%2F` (and `%` as `%25`): `benchstat -row
/target` then groups by the whole target."""

from __future__ import annotations

import re

from nastune.bench.results import ResultSet

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[A-Za-z0-9]+")
_KEY = re.compile(r"[^a-z0-9_.-]+")


def _camel(name: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in _WORD.findall(name)) or "Run"


def _token(text: str) -> str:
    """One name part or unit: no spaces (they end a name), no further '=' in a value."""
    return _SPACE.sub("_", text.strip()).replace("=", ":") or "-"


def _part(text: str) -> str:
    """A name part's value: a token whose '/' cannot split the name (percent-encoded)."""
    return _token(text.replace("%", "%25").replace("/", "%2F"))


def _config(key: str, value: object) -> str | None:
    """A configuration line: the key lower case without spaces, the value on one line."""
    text = _SPACE.sub(" ", str(value)).strip()
    return f"{_KEY.sub('-', key.lower())}: {text}" if text else None


def _unit(metric: str, unit: str) -> tuple[str, str]:
    """(unit, what the metric adds to its unit): "upload MB/s" in MB/s is ("MB/s", "upload")."""
    rest = metric.replace(unit, " ").strip() if unit and unit in metric else metric.strip()
    return _token(unit or metric), _part(rest) if rest and rest != unit else ""


def export(results: ResultSet) -> str:
    p = results.provenance
    config = [
        f"# nastune run {results.label or '(no label)'}, created {results.created}",
        _config("nastune", p.nastune),
        _config("kernel", p.kernel),
        _config("host", p.host or ""),
        _config("lab-scenario", p.lab_scenario or ""),
        *(_config(f"tool-{name}", version) for name, version in sorted(p.tools.items())),
    ]
    lines = [line for line in config if line]
    directions: dict[str, bool] = {}
    benchmarks: list[str] = []
    for r in results.results:
        parts = [f"target={_part(r.target.url)}"]
        parts += [
            f"{_part(k)}={_part(str(v))}" for k, v in sorted(r.params.items()) if isinstance(v, str | int | float)
        ]
        for metric, m in r.metrics.items():
            unit, extra = _unit(metric, m.unit)
            if directions.setdefault(unit, m.higher_is_better) != m.higher_is_better:
                unit = f"{unit}-{'higher' if m.higher_is_better else 'lower'}"  # one direction per unit
                directions[unit] = m.higher_is_better
            name = "/".join([f"Benchmark{_camel(r.workload)}", *parts, *([f"metric={extra}"] if extra else [])])
            benchmarks += [f"{name} 1 {value:.6g} {unit}" for value in m.values]
    lines += [f"Unit {unit} better={'higher' if up else 'lower'}" for unit, up in directions.items()]
    return "\n".join([*lines, "", *benchmarks]) + "\n"
