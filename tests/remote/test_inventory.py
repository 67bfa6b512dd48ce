"""The inventory: Ansible INI read the way Ansible reads it, and bad files named to the line or host."""

from __future__ import annotations

import re

import pytest

from nastune.remote import inventory

GOOD = """
# a NAS and two clients
[nas]
filer ansible_host=192.0.2.10 nastune_address=198.51.100.10 nastune_smb_share=data nastune_nfs_export=/export/data \
nastune_link_rate=10gbit

[clients]
ws1 ansible_host=192.0.2.21 nastune_mount=/mnt/nas nastune_fio_server=192.0.2.21,8765
ws2 ansible_host=192.0.2.22 ansible_port=2222 nastune_protocols=nfs

[clients:vars]
ansible_user=ops
ansible_ssh_common_args='-o UserKnownHostsFile=/etc/nastune/known_hosts -o ProxyJump=bastion'

[all:vars]
ansible_ssh_private_key_file=/root/.ssh/id_ed25519
ansible_user=root
"""


def test_hosts_groups_and_variables_as_ansible_reads_them():
    inv = inventory.parse(GOOD.replace("\\\n", ""), "hosts.ini")
    assert inv.nas.name == "filer"
    assert inv.nas.address == "192.0.2.10"
    assert inv.nas.data_address == "198.51.100.10"
    assert inv.nas.shares == {"smb": "data", "nfs": "/export/data"}
    assert inv.nas.link_bps == 10**10
    assert inv.nas.user == "root"  # [all:vars] only: the clients' group vars do not reach it
    ws1, ws2 = inv.clients
    assert (ws1.user, ws1.port, ws2.port) == ("ops", 22, 2222)  # group vars above all:vars
    assert ws1.ssh_args == ["-o", "UserKnownHostsFile=/etc/nastune/known_hosts", "-o", "ProxyJump=bastion"]
    assert str(ws1.key) == "/root/.ssh/id_ed25519"
    assert ws1.mount == "/mnt/nas"
    assert ws1.fio_server == "192.0.2.21,8765"
    assert inv.protocols_of(ws1) == ["smb", "nfs"]
    assert inv.protocols_of(ws2) == ["nfs"]
    assert [h.name for h in inv.select("ws2,ws1")] == ["ws2", "ws1"]
    assert len(inv.select("all")) == 2


def test_how_nastune_runs_on_the_nas():
    plain = inventory.parse("[nas]\nn\n[clients]\nc1\n", "x").nas
    assert plain.command == ["nastune"]
    assert plain.lab is False
    text = "[nas]\nn nastune_command='env A=1 /opt/nastune/bin/nastune' nastune_lab=true\n[clients]\nc1\n"
    nas = inventory.parse(text, "x").nas
    assert nas.command == ["env", "A=1", "/opt/nastune/bin/nastune"]
    assert nas.lab is True


def test_a_read_set_names_files_below_the_shares_with_their_sizes():
    text = "[nas]\nn nastune_read_set=aged/a-0.bin:67108864,old/b.iso:4096\n[clients]\nc1\n"
    assert inventory.parse(text, "x").nas.read_set == [("aged/a-0.bin", 67108864), ("old/b.iso", 4096)]


def test_children_groups_are_followed():
    text = "[nas]\nn ansible_host=10.0.0.1\n[office]\na\nb\n[clients:children]\noffice\n"
    assert [h.name for h in inventory.parse(text, "x").clients] == ["a", "b"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("[clients]\nc1\n", "group [nas] must name exactly one host (found 0)"),
        ("[nas]\na\nb\n[clients]\nc\n", "exactly one host (found 2)"),
        ("[nas]\na\n", "group [clients] names no host"),
        ("[nas]\na\n[clients]\nc1 ansible_port=99999\n", "host c1: ansible_port: Input should be less than"),
        ("[nas]\na\n[clients]\nc1 ansible_host='x y'\n", "host c1: ansible_host: a host: 'x y' is not a host name"),
        ("[nas]\na\n[clients]\nc1 nastune_protocols=nfs,afp\n", "host c1: nastune_protocols: unknown"),
        ("[nas]\na\n[clients]\nc1 nastune_mount=mnt\n", "host c1: nastune_mount: an absolute path"),
        ("[nas]\na\n[clients]\nc1 'unterminated\n", "x, line 4: No closing quotation"),
        ("[nas]\na\n[clients]\nc1 mount\n", "host c1: 'mount' is not key=value"),
        ("[nas]\na nastune_link_rate=fast\n[clients]\nc1\n", "nastune_link_rate: not a rate"),
        ("[nas]\n$(reboot)\n[clients]\nc1\n", "host $(reboot): name: String should match"),
        ("[nas]\na nastune_command=''\n[clients]\nc1\n", "host a: nastune_command: List should have at least 1"),
        ('[nas]\na "nastune_command=\'x"\n[clients]\nc1\n', "x, host a: nastune_command: No closing quotation"),
        ("[nas]\na nastune_lab=maybe\n[clients]\nc1\n", "host a: nastune_lab: Input should be a valid boolean"),
        ('[nas]\na\n[clients]\nc1 "ansible_ssh_common_args=-o \'x"\n', "ansible_ssh_common_args: No closing"),
        ("[nas]\na nastune_read_set=a.bin\n[clients]\nc1\n", "nastune_read_set: 'a.bin' is not PATH:BYTES"),
        ("[nas]\na nastune_read_set=../etc/shadow:9\n[clients]\nc1\n", "nastune_read_set: '../etc"),
        ("[nas]\na nastune_read_set=/etc/shadow:9\n[clients]\nc1\n", "a path below the share's root"),
        ("[nas]\na nastune_read_set=a.bin:0\n[clients]\nc1\n", "a.bin: a size in bytes above 0"),
        ("[nas]\na nastune_read_set=a.bin:big\n[clients]\nc1\n", "host a: nastune_read_set"),
        ("all:\n  children:\n", "x, line 1: 'all:' reads as a YAML inventory; install ansible-core"),
        ("[nas]\nnas[1:2]\n", "x, line 2: 'nas[1:2]' is a host range; install ansible-core"),
    ],
)
def test_bad_inventories_name_the_file_and_what_is_wrong(text, message):
    with pytest.raises(inventory.InventoryError) as e:
        inventory.parse(text, "x")
    assert str(e.value).startswith("x")
    assert message in str(e.value)


def test_unknown_client_and_unreadable_file(tmp_path):
    inv = inventory.parse("[nas]\nn\n[clients]\nc1\n", "hosts.ini")
    with pytest.raises(inventory.InventoryError, match=re.escape("hosts.ini: no client 'c9'; clients: c1")):
        inv.select("c1,c9")
    with pytest.raises(inventory.InventoryError, match=re.escape("nope.ini: No such file")):
        inventory.load(tmp_path / "nope.ini")
    (tmp_path / "bin.ini").write_bytes(b"\xff\xfe[nas]")
    with pytest.raises(inventory.InventoryError, match=re.escape("bin.ini: not UTF-8")):
        inventory.load(tmp_path / "bin.ini", ansible=False)


def test_a_client_runs_nastune_only_where_the_inventory_says():
    text = "[nas]\nn\n[clients]\nc1 nastune_command='/opt/nastune/bin/nastune --quiet'\nc2\n"
    c1, c2 = inventory.parse(text, "x").clients
    assert c1.command == ["/opt/nastune/bin/nastune", "--quiet"]
    assert c2.command is None
