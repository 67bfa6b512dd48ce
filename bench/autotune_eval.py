"""How good autotune's search is, judged on landscapes measured once on the lab (soho).

    .venv/bin/python bench/autotune_eval.py record [--grid soho|soho-wide] [--repeats 3] [--size 32M] [--resume]
    .venv/bin/python bench/autotune_eval.py replay [--grid soho|soho-wide] [--seeds 10] [--out RECORD.json]

`record` measures every point of a grid (GRIDS: `soho`, four tunables at 3 levels, 81 points;
`soho-wide`, the two strong ones at 4 levels with the MTU and Samba's aio, 64 points), plus the
system as it is and the rule-based plan, with autotune's own trial machinery: each point applied
with the journal, verified, measured with repeats, rolled back. Every repeat of every point is
kept in bench/data/autotune-grid-NAME.json.

`replay` runs optimizers on that landscape by lookup, each observation drawn from the recorded
repeats (the recorded noise), at equal budgets over seeds: autotune (its sampler, its first two
trials, its finalists measured again), random search (the same first trial and finalists, and
once with the rule plan first too, to tell the sampler's share from the plan's), quasi-random
search, and the rule-based plan. It prints how close each gets to the grid's best (the true
scores are the recorded medians) and a paired test of autotune against random search.

Goals (the issue): within 5% of the grid's best in at most 20 trials in at least 8 of 10 seeds,
within 10% in 10 trials, better than random search (p < 0.05), never worse than the rule-based plan."""

from __future__ import annotations

import argparse
import json
import math
import statistics
import tempfile
import warnings
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

DATA = Path(__file__).parent / "data"
KiB, MiB = 1 << 10, 1 << 20
GRIDS: dict[str, tuple[dict[str, list], list[str]]] = {
    # the four tunables that move soho's NFS and SMB reads and NFS writes, 3 levels each
    "soho": (
        {
            "nfs-transfer-size": [8 * KiB, 64 * KiB, 1 * MiB],
            "tcp-buffer-max": [64 * KiB, 1 * MiB, 8 * MiB],
            "smb-socket-buffers": ["64k", "256k", "auto"],
            "read-ahead": [128, 1024, 4096],
        },
        ["nfs:seq-write", "nfs:seq-read", "smb:seq-read"],
    ),
    # the knobs that bind on every path of soho: finer steps of the two strong ones (the NFS
    # transfer size, the read-ahead of aged data), the MTU and Samba's aio (SMB writes)
    "soho-wide": (
        {
            "nfs-transfer-size": [8 * KiB, 32 * KiB, 128 * KiB, 1 * MiB],
            "read-ahead": [128, 512, 2048, 8192],
            "mtu": [1500, 9000],
            "smb-aio": ["off", "on"],
        },
        ["nfs:seq-write", "nfs:seq-read", "smb:seq-write", "smb:seq-read"],
    ),
}
FINALISTS, FINAL_REPEATS = 3, 5  # as autotune's search


def data_file(name: str) -> Path:
    return DATA / f"autotune-grid-{name}.json"


def key(config: dict, grid: dict) -> str:
    return json.dumps({name: config[name] for name in grid}, sort_keys=True)


# record


def record(args) -> None:
    from nastune.autotune.objective import parse
    from nastune.autotune.search import Search, Settings
    from nastune.jobs.autotune import prepare
    from nastune.report import layout
    from nastune.sites.lab.lab import Lab
    from nastune.sites.lab.site import started
    from nastune.units import size_bytes

    grid, workloads = GRIDS[args.grid]

    class GridRecord(Search):
        """autotune's trials over every point of the grid: no pruning, no finalists."""

        def sampler(self):
            import optuna

            class Grid(optuna.samplers.GridSampler):
                def after_trial(self, *args) -> None:
                    """GridSampler stops the study once the grid is done, which only works
                    inside study.optimize; autotune asks and tells, and counts its trials."""

            return Grid(
                {
                    name: [self.space.bound[name].tunable.domain.param(v) for v in levels]
                    for name, levels in grid.items()
                },
                seed=0,
            )

        def pruner(self):
            import optuna

            return optuna.pruners.NopPruner()

        def finish(self, study):
            return study

    goal = parse(None, workloads)
    out = Path(args.out) / args.grid
    points = 1
    for levels in grid.values():
        points *= len(levels)
    settings = Settings(points + 2, args.repeats, out, accept_risk=frozenset())
    size = size_bytes(args.size)
    site = started("soho", args.resume)
    search, rule_plan = prepare(goal, site, settings, list(grid), size, layout.console(stderr=True), print, GridRecord)
    try:
        search.run(args.resume, rule_plan)
    finally:
        Lab().down(log=print)
    save(out, goal, args)


def save(out: Path, goal, args) -> None:
    """Every measured point of the study in `out`, with its repeats, as the repo's data."""
    import optuna

    from nastune.bench.results import ResultSet

    study = optuna.load_study(study_name="autotune", storage=f"sqlite:///{out / 'study.db'}")
    rows = []
    for t in study.trials:
        config, path = t.user_attrs.get("config"), out / "trials" / f"{t.number}.json"
        if config is None or not path.exists():
            continue
        run = ResultSet.model_validate_json(path.read_text())
        values = {}
        for term in goal.terms:
            m = term.measured(run)
            values[term.spec] = m.values if m else None
        rows.append({"config": config, "origin": t.user_attrs.get("origin", "grid"), "values": values})
    grid, workloads = GRIDS[args.grid]
    DATA.mkdir(exist_ok=True)
    data_file(args.grid).write_text(
        json.dumps(
            {
                **args.provenance,  # the commit it ran (+changes when the tree differed), host, date, load
                "recorded": datetime.now(UTC).isoformat(timespec="seconds"),
                "scenario": "soho",
                "grid_name": args.grid,
                "workloads": workloads,
                "unit": "MB/s",
                "repeats": args.repeats,
                "size": args.size,
                "grid": grid,
                "points": rows,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"recorded {len(rows)} points in {data_file(args.grid)}")


# replay


class Landscape:
    """The recorded grid: each point's repeats per workload (repeats of one configuration
    measured more than once are pooled), its true score (the medians' mean ratio to the base's)."""

    def __init__(self, data: dict):
        self.grid: dict[str, list] = data["grid"]
        self.workloads: list[str] = data["workloads"]
        self.repeats: int = data["repeats"]
        self.values: dict[str, dict[str, list[float]]] = {}
        for p in data["points"]:
            pooled = self.values.setdefault(key(p["config"], self.grid), {w: [] for w in self.workloads})
            for w in self.workloads:
                pooled[w] += p["values"][w] or []
        from nastune.autotune.trials import CURRENT, RULE

        origin = {p["origin"]: p["config"] for p in data["points"]}
        self.current, self.rule = origin[CURRENT], origin[RULE]
        self.base = {w: statistics.median(self.values[key(self.current, self.grid)][w]) for w in self.workloads}
        self.truth = {
            k: self.score({w: statistics.median(v[w]) for w in self.workloads}) for k, v in self.values.items()
        }
        self.best = max(self.truth[key(c, self.grid)] for c in self.configs())

    def configs(self) -> list[dict]:
        import itertools

        names = list(self.grid)
        return [dict(zip(names, values)) for values in itertools.product(*self.grid.values())]

    def score(self, medians: dict[str, float], base: dict[str, float] | None = None) -> float:
        base = base or self.base
        return statistics.fmean(medians[w] / base[w] for w in self.workloads)

    def observe(self, config: dict, repeats: int, rng) -> dict[str, float]:
        """The medians of `repeats` measurements of `config`, drawn from its recorded repeats."""
        found = self.values[key(config, self.grid)]
        return {w: float(np.median(rng.choice(found[w], size=repeats))) for w in self.workloads}


def ordered(name: str, levels: list) -> bool:
    return all(isinstance(v, int) for v in levels)


def params(config: dict, grid: dict) -> dict:
    """Optuna's parameters of a configuration: a level's index for numbers (so that the samplers
    know their order, as autotune's exponents do), the value itself for choices. A number between
    levels (the system's read-ahead as it was) is placed at the nearest level, as autotune's model
    places a current value between two steps; a choice the grid lacks is left to the sampler."""
    out = {}
    for n, v in config.items():
        if ordered(n, grid[n]):
            out[n] = min(range(len(grid[n])), key=lambda i: abs(math.log2(grid[n][i] / v)))
        elif v in grid[n]:
            out[n] = v
    return out


def suggest(trial, grid: dict) -> dict:
    return {
        n: levels[trial.suggest_int(n, 0, len(levels) - 1)]
        if ordered(n, levels)
        else trial.suggest_categorical(n, levels)
        for n, levels in grid.items()
    }


def search(land: Landscape, sampler, budget: int, seeds: list[dict], rng) -> tuple[float, float, float]:
    """One search of `budget` trials (the first ones `seeds`, as autotune enqueues them), then
    the best three observed and the rule plan (choose_finalists, as autotune) measured again beside
    the base, the best of them chosen (no significance gate here): the true score of the one chosen,
    and what the search cost the NAS's users meanwhile: the trials' mean true score, the share of
    them that made the system slower than it was."""
    import optuna

    from nastune.autotune.trials import CURRENT, RULE, choose_finalists

    study = optuna.create_study(direction="maximize", sampler=sampler)
    for config, origin in zip(seeds, (CURRENT, RULE)):
        study.enqueue_trial(params(config, land.grid), user_attrs={"origin": origin, "config": config})
    base = None
    for _ in range(budget):
        trial = study.ask()
        suggested = suggest(trial, land.grid)  # every trial asks, as autotune's do
        config = trial.user_attrs.get("config") or suggested  # an enqueued one measures its own
        trial.set_user_attr("config", config)
        medians = land.observe(config, land.repeats, rng)
        base = base or medians  # trial 0 is the system as it is: the base of every ratio
        study.tell(trial, land.score(medians, base))
    done = choose_finalists(study.trials[1:], FINALISTS, lambda config: config != seeds[0])
    base = land.observe(seeds[0], FINAL_REPEATS, rng)
    again = [(land.score(land.observe(t.user_attrs["config"], FINAL_REPEATS, rng), base), t) for t in done]
    chosen = max(again, key=lambda x: x[0])[1].user_attrs["config"]
    truths = [land.truth[key(t.user_attrs["config"], land.grid)] for t in study.trials[1:]]
    slower = sum(v < land.truth[key(seeds[0], land.grid)] for v in truths) / len(truths)
    return land.truth[key(chosen, land.grid)], statistics.fmean(truths), slower


def greater(table: dict, mine: str, other: str, budget: int):
    """`mine`'s and `other`'s figures over the seeds at `budget`, and the one-sided paired
    Wilcoxon p that `mine`'s are greater (1 when every pair is equal: no evidence)."""
    from scipy.stats import wilcoxon

    a, r = np.array(table[mine, budget]), np.array(table[other, budget])
    return a, r, wilcoxon(a, r, alternative="greater").pvalue if np.any(a != r) else 1.0


def replay(args) -> None:
    said: list[str] = []

    def say(line: str) -> None:
        print(line)
        said.append(line)

    import optuna

    from nastune.autotune.trials import sampler as autotune_sampler

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    land = Landscape(json.loads(Path(args.data or data_file(args.grid)).read_text()))
    rule = land.truth[key(land.rule, land.grid)]
    say(
        f"grid: {len(land.configs())} points of {', '.join(land.grid)}; objective: mean ratio of "
        f"{', '.join(land.workloads)} to the system as it is"
    )
    say(f"grid's best {land.best:.3f}x; rule-based plan {rule:.3f}x ({rule / land.best:.1%} of the best)")
    near = [sum(land.truth[key(c, land.grid)] >= share * land.best for c in land.configs()) for share in (0.95, 0.90)]
    say(f"points within 5% of the best: {near[0]}, within 10%: {near[1]} (of {len(land.configs())})")
    optimizers = {
        "autotune (TPE, multivariate)": lambda seed, budget: (
            autotune_sampler(seed, budget),
            [land.current, land.rule],
        ),
        "TPE, independent": lambda seed, budget: (
            optuna.samplers.TPESampler(seed=seed, multivariate=False, n_startup_trials=max(3, budget // 4)),
            [land.current, land.rule],
        ),
        "quasi-random (Sobol)": lambda seed, budget: (
            optuna.samplers.QMCSampler(seed=seed, scramble=True),
            [land.current],
        ),
        "random search": lambda seed, budget: (optuna.samplers.RandomSampler(seed=seed), [land.current]),
        "random search, rule plan first": lambda seed, budget: (
            optuna.samplers.RandomSampler(seed=seed),
            [land.current, land.rule],
        ),
    }
    found: dict[tuple[str, int], list[float]] = {}
    meanwhile: dict[tuple[str, int], list[float]] = {}
    for budget in (10, 20):
        for name, make in optimizers.items():
            shares, during, slower = [], [], []
            for seed in range(args.seeds):
                sampler, seeds = make(seed, budget)
                score, mean, worse = search(land, sampler, budget, seeds, np.random.default_rng(seed))
                shares.append(score / land.best)
                during.append(mean / land.best)
                slower.append(worse)
            found[name, budget], meanwhile[name, budget] = shares, during
            say(
                f"budget {budget:2d}  {name:30s} median {statistics.median(shares):.1%} of the best; "
                f"within 5%: {sum(s >= 0.95 for s in shares)}/{args.seeds}, within 10%: "
                f"{sum(s >= 0.90 for s in shares)}/{args.seeds}; worst {min(shares):.1%}; "
                f"the trials: {statistics.fmean(during):.1%} of the best on average, "
                f"{statistics.fmean(slower):.0%} slower than the system as it was"
            )
    mine, n = "autotune (TPE, multivariate)", args.seeds
    met = {True: "met", False: "NOT met"}
    at20, at10 = sum(s >= 0.95 for s in found[mine, 20]), sum(s >= 0.90 for s in found[mine, 10])
    say("goals:")
    say(f"  within 5% of the best in 20 trials in >= 80% of seeds: {at20}/{n} ({met[at20 >= 0.8 * n]})")
    say(f"  within 10% of the best in 10 trials in >= 80% of seeds: {at10}/{n} ({met[at10 >= 0.8 * n]})")
    for budget in (10, 20):
        a, r, p = greater(found, mine, "random search", budget)
        say(
            f"  better than random search at {budget} trials (paired Wilcoxon over seeds, mean "
            f"{a.mean():.1%} against {r.mean():.1%} of the best): p = {p:.3g} ({met[p < 0.05]})"
        )
    for budget in (10, 20):
        a, r, p = greater(meanwhile, mine, "random search", budget)
        say(
            f"  (not a goal) its trials better than random search's at {budget} trials (paired "
            f"Wilcoxon, mean {a.mean():.1%} against {r.mean():.1%} of the best): p = {p:.3g}"
        )
    worst = min(min(found[mine, b]) for b in (10, 20)) * land.best / rule
    spread = statistics.median(
        (max(v) - min(v)) / statistics.median(v) for point in land.values.values() for v in point.values() if v
    )
    say(
        f"  never worse than the rule-based plan: worst seed {worst:.3f}x the plan ({met[worst >= 1.0]}; "
        f"a point's recorded repeats spread by {spread:.1%}, the median of max - min over median)"
    )
    if not args.out:
        return
    out = Path(args.out)
    out.write_text(
        json.dumps(
            {
                "bench": "autotune_eval replay",
                **args.provenance,
                "optuna": optuna.__version__,
                "printed": said,
                "found": {f"{name} @ {budget}": v for (name, budget), v in found.items()},
                "trials_mean": {f"{name} @ {budget}": v for (name, budget), v in meanwhile.items()},
            },
            indent=1,
        )
        + "\n"
    )
    print(f"recorded in {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="measure the grid on the lab (about 45 minutes)")
    rec.add_argument("--grid", choices=GRIDS, default="soho")
    rec.add_argument("--repeats", type=int, default=3)
    rec.add_argument("--size", default="32M")
    rec.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "nastune-autotune-grid"))
    rec.add_argument("--resume", action="store_true", help="continue a killed recording in --out")
    rep = sub.add_parser("replay", help="replay the optimizers on the recorded grid")
    rep.add_argument("--grid", choices=GRIDS, default="soho")
    rep.add_argument("--seeds", type=int, default=10)
    rep.add_argument("--data", help="a recorded grid's file (default: the --grid's in bench/data)")
    rep.add_argument(
        "--out", help="record what it prints and every seed's score (bench/results/autotune-replay-GRID.json)"
    )
    args = parser.parse_args()
    from record import provenance  # beside this script: run as bench/autotune_eval.py

    args.provenance = provenance()  # as the run starts: the commit it runs, whatever is committed meanwhile
    if args.command == "record":
        record(args)
    else:
        replay(args)


if __name__ == "__main__":
    main()
