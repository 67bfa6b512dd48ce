#!/usr/bin/python
# Copyright: (c) 2026, nastune developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nastune.nas.diagnose: what makes this NAS slow, as data."""

from __future__ import annotations

DOCUMENTATION = r"""
module: diagnose
short_description: Run nastune's rules on a NAS and return the findings
description:
  - Runs C(nastune diagnose --json) on the host. Never changes anything.
options:
  min_severity:
    description: Leave out findings below this severity.
    type: str
    choices: [info, low, medium, high, critical]
    default: info
  only:
    description: Only these rules.
    type: list
    elements: str
    default: []
  fail_on:
    description: Fail the task when a finding of this severity or higher exists.
    type: str
    choices: [info, low, medium, high, critical]
extends_documentation_fragment: nastune.nas.nastune
author: nastune developers (@nastune)
"""

EXAMPLES = r"""
- name: Find what makes the NAS slow
  nastune.nas.diagnose:
    min_severity: medium
  register: diagnosed
"""

RETURN = r"""
findings:
  description: Each finding with its rule, severity, evidence, change, trade-off and source.
  returned: always
  type: list
  elements: dict
by_severity:
  description: How many findings of each severity.
  returned: always
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.nastune.nas.plugins.module_utils.nastune import COMMON, run

SEVERITIES = ["info", "low", "medium", "high", "critical"]


def main():
    module = AnsibleModule(
        argument_spec=dict(
            min_severity=dict(type="str", choices=SEVERITIES, default="info"),
            only=dict(type="list", elements="str", default=[]),
            fail_on=dict(type="str", choices=SEVERITIES),
            **COMMON,
        ),
        supports_check_mode=True,
    )
    only = [word for rule in module.params["only"] for word in ("--only", rule)]
    out = run(module, "diagnose", "--json", "--min-severity", module.params["min_severity"], *only)[1]
    findings = out.get("findings", [])
    by_severity = {s: sum(1 for f in findings if f.get("severity") == s) for s in SEVERITIES}
    result = dict(changed=False, findings=findings, by_severity=by_severity)
    limit = module.params["fail_on"]
    if limit and any(SEVERITIES.index(f.get("severity", "info")) >= SEVERITIES.index(limit) for f in findings):
        module.fail_json(msg=f"findings of severity {limit} or higher", **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
