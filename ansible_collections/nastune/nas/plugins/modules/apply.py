#!/usr/bin/python
# Copyright: (c) 2026, nastune developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nastune.nas.apply: apply a plan with nastune's journal, or confirm its network changes."""

from __future__ import annotations

DOCUMENTATION = r"""
module: apply
short_description: Apply a nastune plan on a NAS (journaled, read back, rolled back on failure)
description:
  - >-
    Runs C(nastune apply) on the host. In check mode it is C(nastune apply --dry-run). Changed only when a setting was
    not already as planned, so a second run reports no change.
  - >-
    With C(--diff), shows each setting the plan changes, as read before the apply and as planned.
  - >-
    Network changes arm nastune's confirm-or-revert watchdog on the host; prove the host is still reachable (for example
    with M(ansible.builtin.wait_for_connection) after C(meta: reset_connection)), then confirm with O(confirm).
options:
  src:
    description: The plan file on the host. One of O(src), O(plan) and O(confirm) is required.
    type: path
  plan:
    description: >-
      The plan itself, as M(nastune.nas.plan) returns it; it works in check mode too, where the plan module writes no
      file.
    type: dict
  persist:
    description: Also make the changes survive a reboot (refused when another sysctl file would override them).
    type: bool
    default: false
  accept_risk:
    description: Trades to accept; C(durability) allows changes that trade crash safety for speed.
    type: list
    elements: str
    choices: [durability]
    default: []
  confirm_timeout:
    description: Seconds after which the host reverts network changes unless confirmed.
    type: int
    default: 120
  confirm:
    description: >-
      A journal whose network changes to keep (stops its watchdog); nothing else is done. Changed only when the journal
      was not confirmed yet and still holds applied changes; fails when its watchdog has already rolled them back.
    type: str
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    platforms: posix
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - nastune.nas.nastune
author: nastune developers (@nastune)
"""

EXAMPLES = r"""
- name: Apply the plan
  nastune.nas.apply:
    src: /var/lib/nastune/plan.json
  register: applied

- name: Keep its network changes once the host answers over a new connection
  nastune.nas.apply:
    confirm: "{{ applied.journal }}"
  when: applied.watchdog | int > 0
"""

RETURN = r"""
journal:
  description: The journal of this apply on the host (for verify and rollback); null when nothing changed.
  returned: always
  type: str
changed_settings:
  description: How many settings changed (in check mode, would change).
  returned: always
  type: int
watchdog:
  description: Seconds until the host reverts network changes unless confirmed (0 when none are pending).
  returned: always
  type: int
"""

import json
import os
import tempfile

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.nastune.nas.plugins.module_utils.nastune import COMMON, run


def _apply(module, src):
    """nastune apply SRC's JSON answer (a dry run in check mode)."""
    p = module.params
    args = [src, "--json", "--confirm-timeout", str(p["confirm_timeout"])]
    args += ["--dry-run"] if module.check_mode else ["--yes"]
    args += ["--persist"] if p["persist"] else []
    args += [word for risk in p["accept_risk"] for word in ("--accept-risk", risk)]
    return run(module, "apply", *args)[1]


def main():
    module = AnsibleModule(
        argument_spec=dict(
            src=dict(type="path"),
            plan=dict(type="dict"),
            persist=dict(type="bool", default=False),
            accept_risk=dict(type="list", elements="str", choices=["durability"], default=[]),
            confirm_timeout=dict(type="int", default=120),
            confirm=dict(type="str"),
            **COMMON,
        ),
        required_one_of=[("src", "plan", "confirm")],
        mutually_exclusive=[("src", "plan", "confirm")],
        supports_check_mode=True,
    )
    p = module.params
    if p["confirm"]:
        # check mode cannot ask without confirming: it reports the change a confirmation may make
        confirmed = module.check_mode or run(module, "confirm", "--journal", p["confirm"], "--json")[1]["confirmed"]
        module.exit_json(changed=confirmed, journal=p["confirm"], changed_settings=0, watchdog=0)
    if p["plan"] is None:
        out = _apply(module, p["src"])
    else:
        handle, scratch = tempfile.mkstemp(suffix=".json", prefix="nastune-plan-")
        try:
            with os.fdopen(handle, "w") as f:
                json.dump(p["plan"], f)
            out = _apply(module, scratch)
        finally:
            os.unlink(scratch)
    count = out.get("would_change" if module.check_mode else "changed", 0)
    result = dict(changed=count > 0, journal=out.get("journal"), changed_settings=count)
    result["watchdog"] = out.get("watchdog", 0)
    if module._diff:
        changes = [s for s in out.get("settings", []) if s.get("change")]
        result["diff"] = dict(
            before="".join(f"{s['setting']} = {s['current']}\n" for s in changes),
            after="".join(f"{s['setting']} = {s['new']}\n" for s in changes),
        )
    module.exit_json(**result)


if __name__ == "__main__":
    main()
