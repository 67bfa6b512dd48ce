"""An inventory read by Ansible itself (`ansible-inventory --list`), so whatever Ansible takes
(INI or YAML, host ranges, group_vars and host_vars, inventory scripts and plugins,
directories) nastune reads with the same hosts and variables as `ansible-playbook`."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from nastune import commands
from nastune.errors import UsageError
from nastune.remote.inventory_ini import Members, Vars

TIMEOUT = 120.0  # a dynamic inventory may ask a cloud API
ENV = {
    "LC_ALL": "C.UTF-8",  # Ansible refuses to start without a UTF-8 locale
    "ANSIBLE_INVENTORY_UNPARSED_FAILED": "True",  # a file no plugin can read is an error, not 0 hosts
    "ANSIBLE_NOCOLOR": "True",
}


def program() -> str | None:
    """`ansible-inventory` beside this Python (a venv's) or on PATH; None without Ansible."""
    beside = Path(sys.executable).parent / "ansible-inventory"
    return str(beside) if beside.is_file() else shutil.which("ansible-inventory")


def read(path: Path, ansible: str) -> Members:
    """Every group's hosts (through its children) with the variables Ansible gives each."""
    done = commands.run([ansible, "-i", str(path), "--list"], timeout=TIMEOUT, env=ENV)
    if not done.ok:
        raise UsageError(f"{path}: ansible-inventory could not read it: {_why(done)}")
    try:
        listed = json.loads(done.stdout)
        hostvars: dict[str, Vars] = listed["_meta"]["hostvars"]
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"{path}: ansible-inventory printed no inventory ({e})") from None

    def members(group: str, seen: frozenset[str]) -> list[str]:
        entry = listed.get(group) or {}
        found = list(entry.get("hosts", []))
        for child in entry.get("children", []):
            if child not in seen:
                found += [h for h in members(child, seen | {group}) if h not in found]
        return found

    groups = [g for g in listed if g != "_meta"]
    return {g: [(h, hostvars.get(h, {})) for h in members(g, frozenset())] for g in groups}


def _why(done: commands.CommandResult) -> str:
    """Ansible's own error line, without its colour and traceback hints."""
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("[ERROR]", "ERROR"))]
    plugins = [line.removeprefix("[WARNING]: ") for line in lines if "Failed to parse inventory with" in line]
    return "; ".join((errors or [done.reason])[:1] + plugins)


def decrypt(blob: str, what: str) -> str:
    """A value Ansible Vault encrypted (ansible-inventory prints it still encrypted), decrypted
    by ansible-vault with the vault password file Ansible itself is told of: the text travels on
    standard input and output, never on a command line."""
    found = program()
    vault = str(Path(found).with_name("ansible-vault")) if found else None
    password_file = os.environ.get("ANSIBLE_VAULT_PASSWORD_FILE")
    if not vault or not Path(vault).exists():
        raise UsageError(f"{what}: encrypted with Ansible Vault, and ansible-vault is not installed here")
    if not password_file:
        raise UsageError(f"{what}: encrypted with Ansible Vault: set ANSIBLE_VAULT_PASSWORD_FILE to its password file")
    argv = [vault, "decrypt", "--vault-password-file", password_file, "--output", "-"]
    done = commands.run(argv, timeout=TIMEOUT, input=blob, env=ENV)
    if not done.ok:
        raise UsageError(f"{what}: ansible-vault could not decrypt it: {_why(done)}")
    return done.stdout
