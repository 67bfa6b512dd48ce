#!/usr/bin/python
# Copyright: (c) 2026, nastune developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nastune.nas.rollback: restore every original value of an applied plan."""

from __future__ import annotations

DOCUMENTATION = r"""
module: rollback
short_description: Roll back a nastune plan on a NAS
description:
  - >-
    Runs C(nastune rollback --json) on the host, which restores the originals newest first; safe to repeat (a second run
    changes nothing). Fails, naming each entry and how to restore it by hand, when one cannot be restored.
  - In check mode it is C(nastune rollback --dry-run), which counts what it would restore and changes nothing.
options:
  to:
    description: The journal to roll back (default, the newest).
    type: str
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    platforms: posix
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - nastune.nas.nastune
author: nastune developers (@nastune)
"""

EXAMPLES = r"""
- name: Undo the tuning
  nastune.nas.rollback:
"""

RETURN = r"""
restored:
  description: How many settings were put back (in check mode, would be).
  returned: always
  type: int
journal:
  description: The journal rolled back.
  returned: always
  type: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.nastune.nas.plugins.module_utils.nastune import COMMON, run


def main():
    module = AnsibleModule(argument_spec=dict(to=dict(type="str"), **COMMON), supports_check_mode=True)
    to = ["--journal", module.params["to"]] if module.params["to"] else []
    dry = ["--dry-run"] if module.check_mode else []
    rc, out = run(module, "rollback", "--json", *to, *dry, ok=(0, 1))
    result = dict(changed=out.get("restored", 0) > 0, restored=out.get("restored", 0), journal=out.get("journal"))
    if rc != 0:
        module.fail_json(msg="some entries could not be restored", failures=out.get("failures", []), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
