# Copyright: (c) 2026, nastune developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
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


# The schema tag of each summary this collection reads (nastune's src/nastune/wire.py and schemas/).
SCHEMAS = {
    "apply": "nastune.apply/1",
    "confirm": "nastune.confirm/1",
    "verify": "nastune.verify/1",
    "rollback": "nastune.rollback/1",
    "diagnose": "nastune.findings/1",
    "inspect": "nastune.facts/1",
}


def run(module, subcommand, *args, ok=(0,), system=True, parse=True, data=None):
    """(rc, parsed stdout) of nastune; fails the task with nastune's own message otherwise, and
    when the summary is not of the schema this collection reads. `data` is its standard input."""
    words = argv(module, subcommand, *args, system=system)
    rc, out, err = module.run_command(words, data=data, binary_data=data is not None)
    if rc not in ok:
        module.fail_json(msg=f"nastune {subcommand} failed (exit {rc}): {err.strip() or out.strip()}", rc=rc, cmd=words)
    if not parse:
        return rc, out
    try:
        data = json.loads(out)
    except ValueError:
        said = f"; it said: {err.strip()[-300:]}" if err.strip() else ""
        module.fail_json(msg=f"nastune {subcommand} did not print JSON: {out[:300]!r}{said}", rc=rc, cmd=words)
    want = SCHEMAS.get(subcommand)
    got = data.get("schema") if isinstance(data, dict) else None
    if want and got != want:
        module.fail_json(
            msg=f"nastune {subcommand} printed {got or 'no schema tag'}; this collection reads {want}: "
            "install matching versions of nastune and the nastune.nas collection",
            rc=rc,
            cmd=words,
        )
    return rc, data
