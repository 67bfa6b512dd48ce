#!/usr/bin/python
# Copyright: (c) 2026, nastune developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nastune.nas.plan: the findings' changes as a plan file on the host."""

from __future__ import annotations

DOCUMENTATION = r"""
module: plan
short_description: Write the plan of nastune's findings to a file on the NAS
description:
  - Runs C(nastune plan) on the host and keeps the plan at O(dest). Changed only when the plan differs from the one
    there.
options:
  dest:
    description: Where the plan goes on the host.
    type: path
    required: true
  only:
    description: Only the changes of these rules.
    type: list
    elements: str
    default: []
extends_documentation_fragment: nastune.nas.nastune
author: nastune developers (@nastune)
"""

EXAMPLES = r"""
- name: Plan the tuning
  nastune.nas.plan:
    dest: /var/lib/nastune/plan.json
"""

RETURN = r"""
plan:
  description: The plan (its changes, each with knob, target, current and new value, rule).
  returned: always
  type: dict
"""

import json
import os
import tempfile

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.nastune.nas.plugins.module_utils.nastune import COMMON, run


def _changes(text):
    """What a plan changes, without the time it was made."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data.get("changes") if isinstance(data, dict) else None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            dest=dict(type="path", required=True), only=dict(type="list", elements="str", default=[]), **COMMON
        ),
        supports_check_mode=True,
    )
    dest = module.params["dest"]
    only = [word for rule in module.params["only"] for word in ("--only", rule)]
    handle, scratch = tempfile.mkstemp(suffix=".json", dir=os.path.dirname(dest) or ".")
    os.close(handle)
    try:
        run(module, "plan", "--out", scratch, *only, parse=False)
        with open(scratch) as f:
            text = f.read()
        try:
            with open(dest) as f:
                old = f.read()
        except FileNotFoundError:
            old = None
        changed = old is None or _changes(old) != _changes(text)
        if changed and not module.check_mode:
            module.atomic_move(scratch, dest)
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)
    module.exit_json(changed=changed, plan=json.loads(text), dest=dest)


if __name__ == "__main__":
    main()
