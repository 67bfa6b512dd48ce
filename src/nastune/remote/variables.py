"""Every inventory variable nastune reads, with the host it belongs to, what it means and an
example: the one list that the inventory reader checks names against (a misspelt `nastune_*`
variable is refused with the closest known name) and that docs/your-nas.md shows as a table
(`python -m nastune.remote.variables` prints it; a test keeps the page equal to it)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from nastune.protocols import PROTOCOLS


@dataclass(frozen=True)
class Variable:
    name: str
    host: str  # "nas", "client" or "any" (on a client it overrides the NAS's value)
    meaning: str
    example: str
    field: str = ""  # the inventory model's field it sets, for errors that name the variable


def _shares() -> list[Variable]:
    return [
        Variable(
            p.share_var,
            "nas",
            f"what clients use of the NAS's {p.name.upper()} (a share, an export or a directory); without it, "
            f"{p.name.upper()} is not measured",
            p.lab_share,
            "shares",
        )
        for p in PROTOCOLS.values()
    ]


def _logins() -> list[Variable]:
    found = []
    for p in PROTOCOLS.values():
        if not p.login_var:
            continue
        found += [
            Variable(
                f"{p.login_var}_user",
                "any",
                f"the user clients log in as over {p.name.upper()} (none: a guest)",
                "alice",
                "logins",
            ),
            Variable(
                f"{p.login_var}_password",
                "any",
                "its password; keep it in Ansible Vault (`ansible-vault "
                "encrypt_string`, with ANSIBLE_VAULT_PASSWORD_FILE set where nastune runs)",
                "(vaulted)",
                "logins",
            ),
            *[
                Variable(
                    f"{p.login_var}_domain",
                    "any",
                    "its domain or workgroup, where the server needs one",
                    "WORKGROUP",
                    "logins",
                )
            ][: int(p.login_domain)],
            Variable(
                p.login_file_var,
                "any",
                f"or: a file on the machine that runs nastune (mode 600), in {p.login_file_doc}",
                f"/root/.nastune-{p.name}",
                "logins",
            ),
        ]
    return found


ANSIBLE = [
    Variable("ansible_host", "any", "the address nastune reaches the host at over SSH", "192.0.2.10", "address"),
    Variable("ansible_user", "any", "the SSH user", "root", "user"),
    Variable("ansible_port", "any", "the SSH port", "22", "port"),
    Variable("ansible_ssh_private_key_file", "any", "the SSH key", "~/.ssh/id_ed25519", "key"),
    Variable("ansible_ssh_common_args", "any", "more ssh options", "-o ProxyJump=bastion", "ssh_args"),
    Variable("ansible_connection", "any", "`local`: this machine itself, no SSH", "local", "local"),
]

NASTUNE = [
    Variable(
        "nastune_address",
        "nas",
        "the address clients reach the shares at (default: ansible_host)",
        "198.51.100.10",
        "data_address",
    ),
    *_shares(),
    *_logins(),
    Variable(
        "nastune_link_rate",
        "nas",
        "the NAS's link, for the physical limit of a result and every rule "
        "that needs the link's speed (before what the NIC reports)",
        "10gbit",
        "link_bps",
    ),
    Variable(
        "nastune_link_overhead",
        "nas",
        "bytes per frame the link's rate also carries (38 on Ethernet)",
        "38",
        "link_overhead",
    ),
    Variable(
        "nastune_iperf3_port",
        "nas",
        "the port of the one-off iperf3 server the network workload starts on the NAS",
        "5201",
        "iperf3_port",
    ),
    Variable(
        "nastune_read_set",
        "nas",
        "files already on the NAS that aged-read fetches, PATH:BYTES,... below "
        "every share's root (old, fragmented data of your own)",
        "old/a.bin:1073741824",
        "read_set",
    ),
    Variable(
        "nastune_command",
        "any",
        "how to run nastune on the NAS; on a client, nastune there also reads and tunes that client (its "
        "TCP settings, its NFS mounts), its changes journaled there (without it, a client is only measured from)",
        "/opt/nastune/bin/nastune",
        "command",
    ),
    Variable(
        "nastune_lab", "nas", "true only for the built-in lab's NAS (a namespace of this machine)", "false", "lab"
    ),
    Variable(
        "nastune_protocols",
        "client",
        "which of smb, nfs, ftp this client uses (default: all the NAS offers)",
        "smb,nfs",
        "protocols",
    ),
    Variable(
        "nastune_mount", "client", "where this client mounts the share, for fio's path workloads", "/mnt/nas", "mount"
    ),
    Variable(
        "nastune_fio_server",
        "client",
        "HOST,PORT of this client's `fio --server` (without it, fio runs there over SSH)",
        "192.0.2.21,8765",
        "fio_server",
    ),
    Variable(
        "nastune_smb_protection",
        "client",
        "what this client requires of its SMB sessions, as your own clients do: sign (Windows 11 24H2, "
        "macOS), encrypt, or off (default: smbclient's own, signing only where the server requires it)",
        "sign",
        "smb_protection",
    ),
]

KNOWN = {v.name: v for v in ANSIBLE + NASTUNE}


def field_variable(field: str) -> str:
    """The variable behind a model field, for error messages ("" when several set it)."""
    found = [v.name for v in KNOWN.values() if v.field == field]
    return found[0] if len(found) == 1 else ""


def unknown(names: list[str]) -> str | None:
    """Why a set of a host's variables holds a `nastune_*` name nastune does not know, naming the
    closest known one; None when all are known."""
    for name in sorted(names):
        if name.startswith("nastune_") and name not in KNOWN:
            close = difflib.get_close_matches(name, [n for n in KNOWN if n.startswith("nastune_")], n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            return f"{name}: not a variable nastune knows{hint} (docs/your-nas.md lists them)"
    return None


def table() -> str:
    """The variables as the Markdown table of docs/your-nas.md."""
    rows = ["| variable | on | what it is | example |", "| --- | --- | --- | --- |"]
    where = {"nas": "the NAS", "client": "a client", "any": "the NAS or a client"}
    for v in NASTUNE + ANSIBLE:
        rows.append(f"| `{v.name}` | {where[v.host]} | {v.meaning} | `{v.example}` |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(table(), end="")
