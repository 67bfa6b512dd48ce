"""What SMB signing and encryption cost a small NAS, and what the signing rule's fix recovers,
measured on the lab by interleaved A/B (`nastune ab`: A and B alternate in random order, each B
against its own pair's A), for SMB sequential reads and writes, with the servers at half a core
(soho's) and at one core.

On a lab with Samba's defaults and clients that sign only where the server requires it:
- signing: `server signing = mandatory` (AES-128-GMAC, Samba's first choice) against none;
- old signing: the same with HMAC-SHA256 first (what pre-4.15 clients and older configurations use);
- encryption: `server smb encrypt = required` (AES-128-GCM) against none.
On the `signing` scenario (Samba requiring signing with HMAC-SHA256 first, clients requiring
signing as Windows 11 24H2 does), and on the `encrypted` one (Samba requiring encryption with
AES-CCM first, clients requiring encryption):
- the fix: the smb-signing-cost (smb-encryption-cost) rule's own plan, without its security trade
  (signing or encryption stays required; only the algorithm order moves).
`--rate 10gbit` runs it all on a 10 Gbit link instead of the scenario's, where the CPU each byte
costs, not the link, decides.

Goal, fixed before the run: a rule's fix recovers a significant share of what its old algorithm
order costs at the fewest CPUs measured, half a core by default (B better than A, the paired
interval above zero, for reads or writes). Where the lab
shows no effect (this CPU has AES-NI and SHA extensions), the record says so and the rule's
severity follows it.

    .venv/bin/python bench/signing.py [--cpus 0.5,1] [--rate R] [--scenarios signing,encrypted]
        [--max-pairs 12] [--out bench/results/signing.json]"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from record import RESULTS, write

SCENARIOS = Path(__file__).resolve().parent.parent / "src" / "nastune" / "lab" / "scenarios"
WORKLOADS = ("seq-read", "seq-write")
RULES = {"signing": "smb-signing-cost", "encrypted": "smb-encryption-cost"}  # each scenario's rule
SAMBA = {  # the plans measured against Samba's defaults, each a change of [global]
    "signing (GMAC)": {"server signing": "mandatory"},
    "signing (HMAC-SHA256)": {
        "server signing": "mandatory",
        "server smb3 signing algorithms": "HMAC-SHA256, AES-128-CMAC, AES-128-GMAC",
    },
    "encryption (AES-128-GCM)": {"server smb encrypt": "required"},
}


def nastune(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "nastune", *args], text=True, capture_output=True)
    if done.returncode:
        raise SystemExit(f"nastune {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done


def scenario_file(base: str, cpus: float, work: Path, defaults: bool, rate: str | None) -> Path:
    """The built-in `base` scenario at `cpus` (and `rate`, when given); with `defaults`, Samba's
    own settings and clients that sign only where the server requires it."""
    text = (SCENARIOS / f"{base}.toml").read_text()
    data = tomllib.loads(text)
    lines = [f'description = "{data["description"]} ({cpus} CPU)"', f"clients = {data['clients']}"]
    if not defaults and data.get("client_protection"):
        lines.append(f'client_protection = "{data["client_protection"]}"')
    lines += ["[network]", f'rate = "{rate or data["network"]["rate"]}"', f"mtu = {data['network']['mtu']}"]
    lines += ["[storage]", f'size = "{data["storage"]["size"]}"', 'mount_options = ["relatime"]']
    if not defaults:
        lines += ["[samba]", *(f'"{k}" = "{v}"' for k, v in data["samba"].items())]
    lines += ["[limits]", f"cpus = {cpus}"]
    path = work / f"{base}-{'defaults' if defaults else 'as-built'}-{cpus}-{rate}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def plan_file(changes: dict[str, str], work: Path, name: str) -> Path:
    listed = [
        {"id": i + 1, "knob": "samba", "target": "global", "key": k, "new": v}
        for i, (k, v) in enumerate(changes.items())
    ]
    path = work / f"{name}.json"
    path.write_text(json.dumps({"schema": "nastune.plan/1", "lab": True, "changes": listed}))
    return path


def rule_fix(work: Path, cpus: float, rule: str) -> Path:
    """`rule`'s plan on the running lab, its security trade left out."""
    whole = work / f"{rule}-{cpus}.json"
    nastune("plan", "--lab", "--only", rule, "--out", str(whole))
    plan = json.loads(whole.read_text())
    plan["changes"] = [c for c in plan["changes"] if not c.get("security_risk")]
    if not plan["changes"]:
        raise SystemExit(f"the {rule} rule proposed no algorithm change on its scenario")
    whole.write_text(json.dumps(plan))
    return whole


def ab(plan: Path, out: Path, args) -> dict:
    """`nastune ab` of `plan` on the running lab: every workload's verdict, ratio and interval."""
    words = [f for w in WORKLOADS for f in ("-w", w)]
    nastune(
        "ab",
        str(plan),
        "--lab",
        "--target",
        "smb",
        *words,
        "--max-pairs",
        str(args.max_pairs),
        "--yes",
        "--seed",
        "1",
        "--out-dir",
        str(out),
    )
    return json.loads((out / "ab.json").read_text())


def measured(
    scenario: Path, plans: dict[str, Path | None], work: Path, args, cpus: float, rule: str = ""
) -> dict[str, dict]:
    """Each plan's interleaved A/B on one lab (a plan of None: `rule`'s fix, planned there)."""
    nastune("lab", "up", "--scenario", str(scenario))
    try:
        found = {}
        for name, plan in plans.items():
            print(f"{cpus} CPU: {name}", flush=True)
            found[name] = ab(plan or rule_fix(work, cpus, rule), work / f"{name}-{cpus}-{rule}".replace(" ", "_"), args)
        return found
    finally:
        nastune("lab", "down")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpus", default="0.5,1")
    parser.add_argument("--rate", default=None, help="the link's rate for every lab (default: the scenario's)")
    parser.add_argument("--scenarios", default="signing", help=f"of {', '.join(RULES)}")
    parser.add_argument("--max-pairs", type=int, default=12)
    parser.add_argument("--out", type=Path, default=RESULTS / "signing.json")
    args = parser.parse_args()
    runs: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="nastune-signing-") as tmp:
        work = Path(tmp)
        plans: dict[str, Path | None] = {
            name: plan_file(changes, work, name.split()[0] + str(i)) for i, (name, changes) in enumerate(SAMBA.items())
        }
        for cpus in (float(c) for c in args.cpus.split(",")):
            at = f"{cpus} CPU" + (f", {args.rate}" if args.rate else "")
            defaults = scenario_file("signing", cpus, work, True, args.rate)
            runs[f"{at}, Samba defaults"] = measured(defaults, plans, work, args, cpus)
            for base in args.scenarios.split(","):
                built = scenario_file(base, cpus, work, False, args.rate)
                fix: dict[str, Path | None] = {"the rule's fix": None}
                runs[f"{at}, {base} scenario"] = measured(built, fix, work, args, cpus, RULES[base])
    printed, met = summary(runs, args)
    print("\n".join(printed))
    write(
        "signing",
        args.out,
        goal=__doc__.split("Goal, fixed before the run: ")[1].split("\n\n")[0],
        met=met,
        printed=printed,
        runs=runs,
    )


def summary(runs: dict[str, dict], args) -> tuple[list[str], bool]:
    """One line per plan and workload: A and B's medians (MB/s), B's change with its interval."""
    printed = [f"interleaved A/B, up to {args.max_pairs} pairs; B against A, each pair's own"]
    fewest = min(float(c) for c in args.cpus.split(","))
    met = False
    for where, plans in runs.items():
        for name, done in plans.items():
            for row in (r for r in done["rows"] if r["unit"] == "MB/s"):
                low, high = (f"{c:+.1%}" if c is not None else "?" for c in row["change_ci"])
                printed.append(
                    f"{where}: {name}: {row['workload']} {row['before_median']:.1f} -> {row['after_median']:.1f} MB/s "
                    f"({row['change']:+.1%}, {low}..{high}, {done['pairs']} pairs) {row['verdict']}"
                )
                fix = name == "the rule's fix" and where.startswith(f"{fewest} CPU")
                met = met or (fix and row["verdict"] == "better" and (row["change_ci"][0] or 0) > 0)
    printed.append(f"signing goal: {'met' if met else 'NOT met'}")
    return printed, met


if __name__ == "__main__":
    main()
