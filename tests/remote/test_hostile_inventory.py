"""Hostile inventory values: every value that reaches a client tool (smbclient's command language,
curl's FTP URL and command line, libnfs's URL, ssh, ping, ip) is either refused when the
inventory is read, naming the variable, or passed so that the tool sees exactly one name and
runs exactly one command. The tools here are stand-ins that record the argument vector they
were given; the lab test runs the real ones (tests/lab/test_clients_lab.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from nastune.bench.targets import Target
from nastune.protocols import PROTOCOLS
from nastune.protocols.client import BenchError
from nastune.remote import inventory
from nastune.remote.inventory import Host
from nastune.ssh import Ssh

INJECTIONS = {
    "semicolon": "a.bin;put /etc/hostname pwned.txt",
    "command-substitution": "$(touch /tmp/pwned)",
    "backquote": "`id`",
    "leading-dash": "-oProxyCommand=touch /tmp/pwned",
    "dash-component": "aged/-rf",
    "quote": 'a".bin',
    "url-query": "a.bin?uid=0",
    "percent": "a%2e.bin",
    "fragment": "a#b",
    "backslash": "a\\b",
}
VARIABLES = ("nastune_read_set", "nastune_smb_share", "nastune_nfs_export", "nastune_ftp_dir")
HOST_VARIABLES = ("ansible_host", "nastune_address")


def _inventory(nas_vars: str = "", client_vars: str = "") -> str:
    return f"[nas]\nfiler ansible_host=192.0.2.10 nastune_smb_share=data {nas_vars}\n[clients]\nws1 {client_vars}\n"


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "'\"'\"'") + "'"


@pytest.mark.parametrize("variable", VARIABLES)
@pytest.mark.parametrize("name", INJECTIONS)
def test_names_that_a_client_tool_would_parse_are_refused_naming_the_variable(variable, name):
    value = INJECTIONS[name] + (":4096" if variable == "nastune_read_set" else "")
    with pytest.raises(inventory.InventoryError, match=variable):
        inventory.parse(_inventory(f"{variable}={_quoted(value)}"), "hosts.ini")


@pytest.mark.parametrize("variable", HOST_VARIABLES)
@pytest.mark.parametrize("value", ["-oProxyCommand=touch /tmp/pwned", "a;b", "$(id)", "a b", "h/x", "1.2.3"])
def test_hosts_that_are_not_names_or_addresses_are_refused(variable, value):
    text = _inventory(f"{variable}={_quoted(value)}") if variable == "nastune_address" else None
    text = text or _inventory(client_vars=f"{variable}={_quoted(value)}")
    with pytest.raises(inventory.InventoryError, match=variable):
        inventory.parse(text, "hosts.ini")


@pytest.mark.parametrize("value", ["-root", "ro ot", "r;m", "$(id)"])
def test_users_and_fio_servers_are_refused_when_they_are_not_plain(value):
    with pytest.raises(inventory.InventoryError, match="ansible_user"):
        inventory.parse(_inventory(client_vars=f"ansible_user={_quoted(value)}"), "hosts.ini")
    with pytest.raises(inventory.InventoryError, match="nastune_fio_server"):
        inventory.parse(_inventory(client_vars=f"nastune_fio_server={_quoted(value + ',8765')}"), "hosts.ini")


def test_values_in_the_model_itself_are_checked_too():
    """The lab and the tests build hosts without an INI file: the model refuses the same."""
    for bad in ("-oProxyCommand=x", "a\nb", "x y"):
        with pytest.raises(ValueError):
            Host(name="c1", address=bad)


def test_ssh_puts_the_host_after_the_end_of_options():
    argv = Ssh(Host(name="c1", address="192.0.2.1")).argv(["true"])
    end = argv.index("--")
    assert argv[end + 1] == "192.0.2.1"
    assert all(not a.startswith("192.0.2.1") for a in argv[:end])


# -- the client tools see one name and one command --------------------------------------------


def _recording_tools(directory: Path) -> Path:
    """smbclient, curl and nfs-cp stand-ins that write their argv (one NUL-terminated word each)."""
    directory.mkdir()
    for tool in ("smbclient", "curl", "nfs-cp"):
        path = directory / tool
        path.write_text(f'#!/bin/sh\nprintf "%s\\0" "$@" > "{directory}/{tool}.argv"\n')
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return directory


def _argv(directory: Path, tool: str) -> list[str]:
    return (directory / f"{tool}.argv").read_bytes().decode().split("\0")[:-1]


def smbclient_commands(text: str) -> list[list[str]]:
    """smbclient's own reading of `-c` (client.c: process_command_string, next_token): split on
    every `;`, then words on spaces outside double quotes."""
    commands = []
    for line in text.split(";"):
        words, word, quoted, any_char = [], "", False, False
        for ch in line:
            if ch == '"':
                quoted, any_char = not quoted, True
            elif ch in " \t" and not quoted:
                if any_char:
                    words.append(word)
                word, any_char = "", False
            else:
                word, any_char = word + ch, True
        if any_char:
            words.append(word)
        if words:
            commands.append(words)
    return commands


@pytest.fixture
def tools(tmp_path, monkeypatch):
    directory = _recording_tools(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{directory}{os.pathsep}{os.environ['PATH']}")
    return directory


NAMES = ["aged/a b.bin", "dir with space/x,y=1+2@3.bin", "plain.bin"]


@pytest.mark.parametrize("name", NAMES)
def test_smbclient_runs_one_command_with_the_whole_name(tools, name):
    target = Target("smb", "smb://192.0.2.10/data", host="192.0.2.10", share="data")
    for call, verb, names in (
        (lambda: PROTOCOLS["smb"].download(target, name), "get", [name, "/dev/null"]),
        (lambda: PROTOCOLS["smb"].upload(target, "/tmp/local file", name), "put", ["/tmp/local file", name]),
        (lambda: PROTOCOLS["smb"].remove(target, name), "del", [name]),
    ):
        call()
        argv = _argv(tools, "smbclient")
        assert argv[:3] == ["-N", "//192.0.2.10/data", "-c"]
        assert smbclient_commands(argv[3]) == [[verb, *names]]


@pytest.mark.parametrize("name", NAMES)
def test_curl_and_nfs_cp_get_one_url_with_the_name_inside_it(tools, name):
    from urllib.parse import unquote, urlsplit

    ftp = Target("ftp", "ftp://192.0.2.10/pub", host="192.0.2.10", share="pub")
    PROTOCOLS["ftp"].download(ftp, name)
    url = _argv(tools, "curl")[-1]
    assert " " not in url
    assert unquote(urlsplit(url).path) == f"/pub/{name}"
    assert not urlsplit(url).query
    nfs = Target("nfs", "nfs://192.0.2.10/data", host="192.0.2.10", share="data")
    PROTOCOLS["nfs"].upload(nfs, "/tmp/x", name)
    assert _argv(tools, "nfs-cp")[-1] == f"nfs://192.0.2.10/data/{name}"


@pytest.mark.parametrize("name", INJECTIONS)
@pytest.mark.parametrize("protocol", ["smb", "nfs", "ftp"])
def test_every_protocol_refuses_a_hostile_name_whatever_its_origin(tools, protocol, name):
    target = Target(protocol, f"{protocol}://192.0.2.10/data", host="192.0.2.10", share="data")
    for call in (
        lambda: PROTOCOLS[protocol].download(target, INJECTIONS[name]),
        lambda: PROTOCOLS[protocol].upload(target, "/tmp/x", INJECTIONS[name]),
        lambda: PROTOCOLS[protocol].remove(target, INJECTIONS[name]),
    ):
        with pytest.raises(BenchError, match="cannot be passed safely"):
            call()
    assert not list(tools.glob("*.argv")), "a tool ran"


def test_a_client_that_requires_signing_runs_smbclient_requiring_it(tools):
    inv = inventory.parse(
        "[nas]\nfiler ansible_host=192.0.2.10\n[clients]\nc1\nwin11 nastune_smb_protection=sign\n", "hosts.ini"
    )
    assert [c.smb_protection for c in inv.clients] == [None, "sign"]
    target = Target("smb", "smb://192.0.2.10/data", host="192.0.2.10", share="data", protection="sign")
    PROTOCOLS["smb"].download(target, "a.bin")
    assert _argv(tools, "smbclient")[:2] == ["-N", "--client-protection=sign"]
    assert target.record().protection == "sign"  # the result records what the client required
    with pytest.raises(inventory.InventoryError, match=r"win11.*nastune_smb_protection"):
        inventory.parse("[nas]\nfiler ansible_host=192.0.2.10\n[clients]\nwin11 nastune_smb_protection=always\n", "h")
