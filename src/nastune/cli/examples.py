"""One or more real command lines for every command's --help, the common case first."""

from __future__ import annotations

EXAMPLES: dict[str, list[str]] = {
    "inspect": ["nastune inspect", "nastune inspect --area network --json", "nastune inspect --root nas.tar.gz"],
    "capture": ["nastune capture nas.tar.gz   # then: nastune diagnose --root nas.tar.gz"],
    "diagnose": [
        "nastune diagnose",
        "nastune diagnose --min-severity medium --fail-on high",
        "nastune diagnose --inventory hosts.ini --json > findings.json",
    ],
    "explain": ["nastune explain", "nastune explain smb-signing-cost"],
    "plan": ["nastune plan --out plan.json", "nastune plan --only mtu-jumbo-frames --out mtu.json"],
    "apply": [
        "nastune apply plan.json --dry-run",
        "nastune apply plan.json --persist",
        "nastune apply plan.json --yes",
    ],
    "verify": ["nastune verify", "nastune verify --inventory hosts.ini"],
    "rollback": ["nastune rollback --dry-run", "nastune rollback", "nastune rollback --inventory hosts.ini"],
    "persist": ["nastune persist", "nastune persist --inventory hosts.ini"],
    "install": ["nastune install --inventory hosts.ini"],
    "confirm": ["nastune confirm", "nastune confirm --inventory hosts.ini"],
    "sample": ["nastune sample --interval 1   # what optimize streams from the NAS"],
    "serve": ["nastune serve   # what optimize keeps up on each host it switches"],
    "compare": ["nastune compare before.json after.json", "nastune compare ab/a.json ab/b.json --json"],
    "report": ["nastune report before.json after.json --findings findings.json"],
    "export": ["nastune export --format benchstat results.json > results.txt"],
    "ab": [
        "nastune ab plan.json --lab --target nfs -w seq-write --yes",
        "nastune ab plan.json --target smb://nas/data --login-file ~/.smb-login --yes",
    ],
    "optimize": [
        "nastune optimize --inventory hosts.ini   # shows the plan, then asks",
        "nastune optimize --inventory hosts.ini --plan edited-plan.json --yes",
        "nastune optimize --lab --scenario soho --yes --allow xfs_fsr",
    ],
    "autotune": [
        "nastune autotune --lab --scenario soho -w nfs:seq-write --budget 20 --yes",
        "nastune autotune --inventory hosts.ini --objective 'smb:seq-write' --yes",
    ],
    "check": ["nastune check", "nastune check --baseline tuned --bench --metrics /var/lib/nastune.prom"],
    "watch": ["nastune watch --install --every daily --baseline tuned", "nastune watch --uninstall"],
    "lab": ["nastune lab up --scenario soho", "nastune lab status", "nastune lab down"],
    "lab up": ["nastune lab up", "nastune lab up --scenario modern --clients 2 --rate 10gbit"],
    "lab down": ["nastune lab down"],
    "lab reset": ["nastune lab reset"],
    "lab status": ["nastune lab status --json"],
    "lab inventory": ["nastune lab inventory > hosts.ini"],
    "lab exec": ["nastune lab exec client1 -- smbclient -L 10.77.0.1 -N"],
    "bench": [
        "nastune bench --lab -w seq-write -w seq-read --out before.json",
        "nastune bench --target /mnt/nas -w iozone --repeats 3",
        "nastune bench --inventory hosts.ini --clients all --scaling",
    ],
    "bench list": ["nastune bench list"],
    "baseline": ["nastune baseline save tuned results.json", "nastune baseline check tuned new.json"],
    "baseline save": ["nastune baseline save tuned results.json"],
    "baseline check": ["nastune baseline check tuned new.json"],
}
