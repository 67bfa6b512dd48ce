"""The protocol registry holds together: every protocol is found by its name (its URL scheme),
has a lab server (sites/lab/serving, found by the same name) with a readiness check made by its
own client, client operations, and tools whose Debian packages the setup script installs."""

from __future__ import annotations

import re
from pathlib import Path

from nastune.bench.targets import parse
from nastune.login import make
from nastune.packages import PACKAGES
from nastune.protocols import PROTOCOLS
from nastune.protocols.base import Protocol
from nastune.sites.lab import servers
from nastune.sites.lab.lab import TOOLS
from nastune.sites.lab.serving import SERVING, Serving
from tests.conftest import need

SETUP = (Path(__file__).parents[2] / "scripts" / "setup").read_text()
# the packages `setup --lab` installs: the words of its apt_packages=( ... ) and lab_packages=( ... )
# arrays, as bash reads them
INSTALLED = {
    word
    for array in ("apt_packages", "lab_packages")
    for word in need(re.search(rf"^{array}=\((.*?)\)", SETUP, re.M | re.S)).group(1).split()
}


def test_every_protocol_declares_its_server_and_client():
    assert {"smb", "nfs", "ftp"} <= set(PROTOCOLS)  # and any a module adds
    for name, p in PROTOCOLS.items():
        assert p.name == name, name
        assert p.title, name
        assert p.server, name
        assert p.lab_share, name
        for method in ("check", "upload", "download", "remove"):
            assert getattr(type(p), method) is not getattr(Protocol, method), f"{name}: no {method}"
        assert SERVING[name].protocol is p and type(SERVING[name]).start is not Serving.start, f"{name}: no lab server"
        check = p.check("10.0.0.1", p.lab_share)
        assert check.argv[0] in p.tools, f"{name}: its readiness check must use its own client"
        login = make("nastune", "pw", None, "test")
        assert servers.checks(login)[p.server] == p.check("10.77.0.1", p.lab_share, login)
        target = parse(p.url("10.0.0.1", p.lab_share))
        assert (target.kind, target.host, target.share) == (name, "10.0.0.1", p.lab_share)


def test_every_lab_server_serves_a_protocol():
    assert set(SERVING) == set(PROTOCOLS)


def test_every_tool_the_lab_runs_is_mapped_to_a_package_that_setup_installs():
    for tool in TOOLS:
        assert tool in PACKAGES, f"{tool}: add it to nastune/packages.py"
        for package in PACKAGES[tool].split():
            assert package in INSTALLED, f"{package} ({tool}) is not among the packages scripts/setup --lab installs"


def test_a_protocol_is_one_module():
    """FTP has nothing but its module, its lab server's (sites/lab/serving/ftp.py), its server's
    package in scripts/setup, its daemon in the list `inspect` reports (facts/system.py, below the
    protocols: it reads any NAS) and its tools' Debian packages in the table of every tool's
    package (packages.py, data the command runner reads wherever a tool is missing): no other code
    names it, its server, its processes or its class, nor imports its module. Adding a protocol
    like it touches five files."""
    import ast

    ftp = PROTOCOLS["ftp"]
    names = {ftp.name, ftp.server, *ftp.processes, type(ftp).__name__}
    src = Path(__file__).parents[2] / "src" / "nastune"
    named = set()
    for path in src.rglob("*.py"):
        if path.name == "ftp.py" and path.parent.name in ("protocols", "serving"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            mentions = (
                (isinstance(node, ast.Constant) and node.value in names)
                or (isinstance(node, ast.Name) and node.id in names)
                or (isinstance(node, ast.ImportFrom) and "ftp" in {a.name for a in node.names})
                or (isinstance(node, ast.ImportFrom) and node.module == "nastune.protocols.ftp")
            )
            if mentions:
                named.add(str(path.relative_to(src)))
    assert named == {"facts/system.py", "packages.py"}
