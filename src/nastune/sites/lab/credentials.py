"""The lab's one login: its shares need a password, as an operator's do, so every lab run goes
the authenticated way. Made at `lab up` and kept in files only root can read, one per protocol
that has logins, in the format operators keep theirs in (smbclient's authentication file, a
netrc for FTP). The lab's inventory names these files; the password is in nothing else the lab
writes but its servers' own password stores."""

from __future__ import annotations

import secrets
from pathlib import Path

from nastune.lab import network
from nastune.login import Login, make
from nastune.protocols import PROTOCOLS

USER = "nastune"


def path(directory: Path, protocol: str) -> Path:
    return directory / "credentials" / protocol


def create(directory: Path, address: str = network.NAS_IP) -> Login:
    """A new random password for the lab's user, written to each protocol's file (mode 600) for
    the NAS at `address` (the kernel lab's guest has its own)."""
    login = make(USER, secrets.token_urlsafe(18), None, "the lab's login")
    (directory / "credentials").mkdir(mode=0o700, parents=True, exist_ok=True)
    for name, p in PROTOCOLS.items():
        if p.login_var:
            file = path(directory, name)
            file.touch(mode=0o600)
            file.chmod(0o600)
            file.write_text(p.login_file(login, address))
    return login


def load(directory: Path) -> Login:
    """The running lab's login (as the first protocol with logins keeps it)."""
    name, p = next((n, p) for n, p in PROTOCOLS.items() if p.login_var)
    return p.login_from_file(path(directory, name), [network.NAS_IP])


def inventory_vars(directory: Path) -> dict[str, str]:
    """The inventory variables that name the lab's credentials files."""
    return {p.login_file_var: str(path(directory, n)) for n, p in PROTOCOLS.items() if p.login_var}
