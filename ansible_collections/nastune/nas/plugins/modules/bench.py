#!/usr/bin/python
# Copyright: (c) 2026, nastune developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nastune.nas.bench: measure from this host with nastune's workloads."""

from __future__ import annotations

DOCUMENTATION = r"""
module: bench
short_description: Measure a NAS with nastune's workloads from the host the task runs on
description:
  - Runs C(nastune bench) on the host (a client measuring a share, or the NAS measuring a path) and keeps every
    repeat in O(dest). Measures; changes no setting.
options:
  target:
    description: Where to measure, as C(nastune bench --target) takes it (a path, or smb/nfs/ftp/iperf3 URL).
    type: str
  workloads:
    description: The workloads (C(nastune bench list)).
    type: list
    elements: str
    default: [seq-write, seq-read]
  repeats:
    description: Repeats of each workload.
    type: int
    default: 5
  size:
    description: File size of the sequential workloads.
    type: str
    default: 256M
  dest:
    description: The result file on the host.
    type: path
    required: true
  login_user:
    description: The user an SMB or FTP O(target) is logged in to as (none, a guest).
    type: str
  login_password:
    description:
      - Its password. It reaches nastune on its standard input, never its command line, and is not logged.
    type: str
  login_domain:
    description: Its SMB domain or workgroup, where the server needs one.
    type: str
extends_documentation_fragment: nastune.nas.nastune
author: nastune developers (@nastune)
"""

EXAMPLES = r"""
- name: Measure the NAS's NFS share from a client
  nastune.nas.bench:
    target: nfs://nas.example/data
    dest: /var/tmp/nas-bench.json

- name: Measure an SMB share that needs a login (the password from Ansible Vault)
  nastune.nas.bench:
    target: smb://nas.example/data
    login_user: alice
    login_password: "{{ vault_nas_password }}"
    dest: /var/tmp/nas-bench-smb.json
"""

RETURN = r"""
medians:
  description: The median of each workload's metrics, keyed by "workload @ target metric".
  returned: always
  type: dict
dest:
  description: The result file with every repeat.
  returned: always
  type: str
"""

import json
import statistics

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.nastune.nas.plugins.module_utils.nastune import COMMON, run


def main():
    module = AnsibleModule(
        argument_spec=dict(
            target=dict(type="str"),
            workloads=dict(type="list", elements="str", default=["seq-write", "seq-read"]),
            repeats=dict(type="int", default=5),
            size=dict(type="str", default="256M"),
            dest=dict(type="path", required=True),
            login_user=dict(type="str"),
            login_password=dict(type="str", no_log=True),
            login_domain=dict(type="str"),
            **COMMON,
        ),
        required_one_of=[("target", "lab")],
        required_together=[("login_user", "login_password")],
        supports_check_mode=False,
    )
    p = module.params
    args = [word for w in p["workloads"] for word in ("-w", w)]
    args += ["--repeats", str(p["repeats"]), "--size", p["size"], "--out", p["dest"]]
    args += ["--target", p["target"]] if p["target"] else []
    login = None
    if p["login_user"]:  # smbclient's authentication-file format, which nastune reads for FTP too
        fields = [("username", p["login_user"]), ("password", p["login_password"]), ("domain", p["login_domain"])]
        login = "".join(f"{k} = {v}\n" for k, v in fields if v)
        args += ["--login-file", "-"]
    run(module, "bench", *args, parse=False, data=login)
    with open(p["dest"]) as f:
        results = json.load(f)
    medians = {
        f"{r['workload']} @ {r['target'].get('url')} {name}": statistics.median(m["values"])
        for r in results.get("results", [])
        for name, m in r.get("metrics", {}).items()
        if m.get("values")
    }
    failed = [f"{r['workload']}: {r['error']}" for r in results.get("results", []) if r.get("error")]
    if failed:
        module.fail_json(msg=f"workloads failed: {'; '.join(failed)}", medians=medians, dest=p["dest"])
    module.exit_json(changed=False, medians=medians, dest=p["dest"])


if __name__ == "__main__":
    main()
