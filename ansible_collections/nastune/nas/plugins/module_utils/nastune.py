"""What every nastune module shares: the options that say how to reach nastune on the host,
and running it there (argv only, never a shell) with its JSON output parsed."""

from __future__ import annotations

import json
import shlex

COMMON = dict(
    command=dict(type="str", default="nastune"),
    lab=dict(type="bool", default=False),
    root=dict(type="str", default="/"),
)


def argv(module, subcommand, *args, system=True):
    """nastune SUBCOMMAND ARGS on this host: `command` may be several words (env, a venv's python -m)."""
    words = shlex.split(module.params["command"]) + [subcommand, *args]
    if system and module.params["lab"]:
        words.append("--lab")
    elif system and module.params["root"] != "/":
        words += ["--root", module.params["root"]]
    return words


def run(module, subcommand, *args, ok=(0,), system=True, parse=True):
    """(rc, parsed stdout) of nastune; fails the task with nastune's own message otherwise."""
    words = argv(module, subcommand, *args, system=system)
    rc, out, err = module.run_command(words)
    if rc not in ok:
        module.fail_json(msg=f"nastune {subcommand} failed (exit {rc}): {err.strip() or out.strip()}", rc=rc, cmd=words)
    if not parse:
        return rc, out
    try:
        return rc, json.loads(out)
    except ValueError:
        module.fail_json(msg=f"nastune {subcommand} did not print JSON: {out[:300]!r}", rc=rc, cmd=words)
