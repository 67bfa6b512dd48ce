#!/usr/bin/python
# Copyright: (c) 2026, nastune developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nastune.nas.facts: the NAS's performance facts as Ansible facts."""

from __future__ import annotations

DOCUMENTATION = r"""
module: facts
short_description: Read a NAS's performance facts with nastune inspect
description:
  - Runs C(nastune inspect --json) on the host and returns every fact as C(ansible_facts.nastune).
  - With O(capture), also writes a snapshot archive (C(nastune capture)) that C(nastune inspect --root) reads anywhere.
options:
  area:
    description: Only these areas (system, network, storage, smb, nfs, ...).
    type: list
    elements: str
    default: []
  capture:
    description: Also write a snapshot archive to this path on the host.
    type: path
extends_documentation_fragment: nastune.nas.nastune
author: nastune developers (@nastune)
"""

EXAMPLES = r"""
- name: Read the NAS's facts
  nastune.nas.facts:

- name: Keep a snapshot for later diagnosis
  nastune.nas.facts:
    capture: /var/tmp/nas-facts.tar.gz
"""

RETURN = r"""
ansible_facts:
  description: C(nastune), the facts as C(nastune inspect --json) prints them.
  returned: always
  type: dict
capture:
  description: The snapshot written, when asked.
  returned: when capture is set
  type: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.nastune.nas.plugins.module_utils.nastune import COMMON, run


def main():
    module = AnsibleModule(
        argument_spec=dict(area=dict(type="list", elements="str", default=[]), capture=dict(type="path"), **COMMON),
        supports_check_mode=True,
    )
    areas = [word for a in module.params["area"] for word in ("--area", a)]
    facts = run(module, "inspect", "--json", *areas)[1]
    result = dict(changed=False, ansible_facts=dict(nastune=facts))
    if module.params["capture"]:
        result.update(changed=True, capture=module.params["capture"])
        if not module.check_mode:
            run(module, "capture", module.params["capture"], system=False, parse=False)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
