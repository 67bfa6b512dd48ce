"""A corpus of inventories (tests/fixtures/inventories: INI and YAML, ranges, host:port,
group_vars and host_vars, an inventory directory, a dynamic script, variables set at every
level) read by nastune and by `ansible-inventory --list` itself: the same hosts with the same
connection variables. nastune's own INI reader (for controllers without Ansible) agrees too,
or refuses naming the construct it cannot read as Ansible would."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from nastune.remote import inventory, inventory_ansible

CORPUS = Path(__file__).parents[1] / "fixtures" / "inventories"
NAMES = sorted(p.name for p in CORPUS.iterdir())
REFUSALS = (
    "is a host range",
    "inventory directory",
    "executable (dynamic) inventory",
    "YAML inventory",
    "beside the inventory",
)


def _source(name: str) -> Path:
    found = [p for p in (CORPUS / name).iterdir() if p.name not in ("group_vars", "host_vars")]
    assert len(found) == 1, found
    return found[0]


def _ansible_says(source: Path) -> dict[str, list[tuple]]:
    """Each of nas and clients: (name, address, port, user, key, ssh args) as Ansible connects."""
    env = {**os.environ, "LC_ALL": "C.UTF-8", "ANSIBLE_INVENTORY_UNPARSED_FAILED": "True"}
    program = inventory_ansible.program()
    assert program, "ansible-core is part of the test install"
    listed = json.loads(
        subprocess.run(
            [program, "-i", str(source), "--list"], env=env, capture_output=True, text=True, check=True
        ).stdout
    )

    def hosts(group: str) -> list[str]:
        entry = listed.get(group, {})
        return entry.get("hosts", []) + [h for child in entry.get("children", []) for h in hosts(child)]

    def connection(name: str) -> tuple:
        v = listed["_meta"]["hostvars"].get(name, {})
        pick = lambda *keys, default=None: next((v[k] for k in keys if k in v), default)
        return (
            name,
            pick("ansible_host", "ansible_ssh_host", default=name),
            int(pick("ansible_port", "ansible_ssh_port", default=22)),
            pick("ansible_user", "ansible_ssh_user"),
            pick("ansible_ssh_private_key_file", "ansible_private_key_file"),
            pick("ansible_ssh_common_args", default=""),
        )

    return {group: [connection(h) for h in dict.fromkeys(hosts(group))] for group in ("nas", "clients")}


def _nastune_says(inv: inventory.Inventory) -> dict[str, list[tuple]]:
    def connection(h: inventory.Host) -> tuple:
        return (h.name, h.address, h.port, h.user, str(h.key) if h.key else None, " ".join(h.ssh_args))

    return {"nas": [connection(inv.nas)], "clients": [connection(h) for h in inv.clients]}


@pytest.mark.parametrize("name", NAMES)
def test_nastune_reads_every_inventory_as_ansible_does(name):
    source = _source(name)
    assert _nastune_says(inventory.load(source)) == _ansible_says(source)


@pytest.mark.parametrize("name", NAMES)
def test_without_ansible_the_ini_reader_agrees_or_names_what_it_cannot_read(name):
    source = _source(name)
    try:
        read = inventory.load(source, ansible=False)
    except inventory.InventoryError as e:
        assert str(source) in str(e) or "beside the inventory" in str(e)
        assert any(r in str(e) for r in REFUSALS), e
        return
    assert _nastune_says(read) == _ansible_says(source)
    # nastune's own variables read alike too
    assert read == inventory.load(source)


def test_the_corpus_has_what_the_ini_reader_reads_and_what_it_refuses():
    outcomes = {}
    for name in NAMES:
        try:
            inventory.load(_source(name), ansible=False)
            outcomes[name] = "read"
        except inventory.InventoryError as e:
            outcomes[name] = next(r for r in REFUSALS if r in str(e))
    assert len(NAMES) >= 10
    assert sum(o == "read" for o in outcomes.values()) >= 5
    assert set(outcomes.values()) == {"read", *REFUSALS}, outcomes


def test_variables_from_yaml_and_group_vars_keep_their_meaning():
    inv = inventory.load(_source("ini-group-vars"))
    assert inv.nas.link_bps == 10**10
    assert inv.nas.shares == {"smb": "data"}
    assert [h.protocols for h in inv.clients] == [["smb", "nfs"], ["smb", "nfs"]]  # a YAML list
    yaml = inventory.load(_source("yaml-basic"))
    assert yaml.nas.lab is False
    assert yaml.nas.shares == {"nfs": "/export/data"}  # a YAML boolean
    literal = inventory.load(_source("ini-literals"), ansible=False)
    assert literal.nas.port == 22
    assert literal.nas.shares == {"smb": "tank data"}


@pytest.mark.parametrize(
    "text, message",
    [
        ('[nas]\nn ansible_host=\'{{ lookup("env", "NAS") }}\'\n[clients]\nc\n', "ansible_host: a Jinja template"),
        ("[nas]\nn nastune_smb_share=\"{'a': 1}\"\n[clients]\nc\n", "nastune_smb_share: a mapping"),
        ("[nas]\nn\n[clients:children]\nmissing\n", "names group 'missing', which is not defined"),
        ("[nas:sideways]\nn\n", "has unknown type 'sideways'"),
    ],
)
def test_what_nastune_cannot_use_is_named_by_both_readers(tmp_path, text, message):
    (tmp_path / "hosts.ini").write_text(text)
    with pytest.raises(inventory.InventoryError, match=message):
        inventory.load(tmp_path / "hosts.ini", ansible=False)
    with pytest.raises(inventory.InventoryError) as e:
        inventory.load(tmp_path / "hosts.ini")
    assert str(tmp_path / "hosts.ini") in str(e.value)


def test_an_inventory_ansible_cannot_read_is_named_with_ansibles_reason(tmp_path):
    (tmp_path / "hosts.yml").write_text("all: [\n")
    with pytest.raises(inventory.InventoryError) as e:
        inventory.load(tmp_path / "hosts.yml")
    assert "hosts.yml: ansible-inventory could not read it" in str(e.value)
    assert "YAML parsing failed" in str(e.value)
