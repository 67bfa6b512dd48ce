#!/usr/bin/python
# Copyright: (c) 2026, nastune developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nastune.nas.verify: does every setting of the applied plan still read as applied?"""

from __future__ import annotations

DOCUMENTATION = r"""
module: verify
short_description: Check a NAS's applied nastune plan for drift
description:
  - Runs C(nastune verify --json) on the host. Fails when a setting drifted, unless O(fail_on_drift=false).
options:
  journal:
    description: The journal to verify (default, the newest).
    type: str
  fail_on_drift:
    description: Fail the task when a setting drifted.
    type: bool
    default: true
extends_documentation_fragment: nastune.nas.nastune
author: nastune developers (@nastune)
"""

EXAMPLES = r"""
- name: Nothing drifted since the plan was applied
  nastune.nas.verify:
"""

RETURN = r"""
settings:
  description: Each setting with its expected and actual value and whether they agree.
  returned: always
  type: list
  elements: dict
drifted:
  description: The settings that no longer read as applied.
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.nastune.nas.plugins.module_utils.nastune import COMMON, run


def main():
    module = AnsibleModule(
        argument_spec=dict(journal=dict(type="str"), fail_on_drift=dict(type="bool", default=True), **COMMON),
        supports_check_mode=True,
    )
    journal = ["--journal", module.params["journal"]] if module.params["journal"] else []
    out = run(module, "verify", "--json", *journal, ok=(0, 1))[1]
    settings = out.get("settings", [])
    drifted = [s["setting"] for s in settings if not s.get("ok")]
    result = dict(changed=False, journal=out.get("journal"), settings=settings, drifted=drifted)
    if drifted and module.params["fail_on_drift"]:
        module.fail_json(msg=f"drifted: {', '.join(drifted)}", **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
