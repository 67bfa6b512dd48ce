"""Installing nastune never changes what this host serves: scripts/setup installs the lab's
servers (Samba, NFS-Ganesha, vsftpd, OpenSSH, rpcbind) without leaving any of them enabled
that was not enabled before it ran (it records that list when it first installs)."""

import shutil
import subprocess
from pathlib import Path

import pytest

RECORD = Path("/var/lib/nastune/setup-enabled-before")
SERVERS = ("smbd", "nmbd", "samba-ad-dc", "nfs-ganesha", "vsftpd", "ssh", "rpcbind", "rpcbind.socket")


def enabled(unit: str) -> bool:
    found = subprocess.run(["systemctl", "is-enabled", unit], capture_output=True, text=True)
    return found.stdout.strip() == "enabled"


@pytest.mark.skipif(shutil.which("systemctl") is None, reason="no systemd on this machine")
@pytest.mark.skipif(not RECORD.exists(), reason="setup installed no package here (nothing it could have enabled)")
def test_setup_left_no_server_enabled_that_was_not_before():
    before = set(RECORD.read_text().split())
    full = lambda unit: unit if "." in unit else f"{unit}.service"
    newly = [u for u in SERVERS if enabled(u) and full(u) not in before]
    assert newly == []
