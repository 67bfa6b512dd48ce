"""Share logins in the inventory, kept as operators keep them: user and password variables (the
password in Ansible Vault), smbclient's authentication file, a netrc; a client's own login over
the NAS's; every mistake named with the file, host and variable, and never the password."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from nastune.login import Login, LoginError, from_netrc, from_smbclient_file, make
from nastune.remote import inventory
from nastune.remote.inventory_ansible import program
from tests.conftest import run_cli

SECRET = 'p4ss "word" \\ with; $pace'


def ini(nas: str, clients: str = "c1") -> inventory.Inventory:
    return inventory.parse(f"[nas]\nfiler ansible_host=192.0.2.10 {nas}\n[clients]\n{clients}\n", "hosts.ini")


def private(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o600)
    return path


def test_a_password_goes_only_to_the_tools_standard_input_and_never_prints():
    login = make("alice", SECRET, "OFFICE", "test")
    assert SECRET not in repr(login)
    assert SECRET not in str(login)
    assert "**" in str(login.password)
    assert login.smbclient_file() == f"username = alice\npassword = {SECRET}\ndomain = OFFICE\n"
    # curl's configuration quotes backslash and double quote
    assert login.curl_config() == 'user = "alice:p4ss \\"word\\" \\\\ with; $pace"\n'


def test_user_and_password_variables_and_a_client_s_own_login():
    inv = ini(
        "nastune_smb_share=data nastune_smb_user=alice nastune_smb_password='s3cret'",
        "c1\nc2 nastune_smb_user=bob nastune_smb_password=other",
    )
    c1, c2 = inv.clients
    assert [getattr(inv.login(c, "smb"), "user", None) for c in (c1, c2)] == ["alice", "bob"]
    assert inv.login(c1, "ftp") is None
    assert inv.login(c1, "nfs") is None  # none given: a guest


@pytest.mark.parametrize(
    ("nas", "message"),
    [
        ("nastune_smb_user=alice", "nastune_smb_user and nastune_smb_password go together"),
        ("nastune_ftp_password=x", "nastune_ftp_user and nastune_ftp_password go together"),
        ("nastune_smb_user='a:b' nastune_smb_password=x", "nastune_smb: user: a name of 1-256 characters"),
        (
            "nastune_smb_shares=data",
            "nastune_smb_shares: not a variable nastune knows; did you mean nastune_smb_share?",
        ),
        ("nastune_smb_pasword=x", "did you mean nastune_smb_password?"),
        ("nastune_smb_credentials=/nonexistent nastune_smb_user=a", "give one of them"),
        ("nastune_smb_credentials=/nonexistent", "SMB credentials file /nonexistent: No such file"),
    ],
)
def test_a_wrong_login_variable_names_the_host_and_the_variable(nas, message):
    with pytest.raises(inventory.InventoryError) as e:
        ini(nas)
    assert str(e.value).startswith("hosts.ini, host filer: ")
    assert message in str(e.value)


def test_a_password_with_a_line_break_is_refused_without_showing_it():
    with pytest.raises(LoginError) as e:
        make("alice", "top\nsecret", None, "hosts.ini, host filer: nastune_smb")
    assert str(e.value).startswith("hosts.ini, host filer: nastune_smb: password: a password of at most")
    assert "secret" not in str(e.value).replace("nastune_smb", "")


def test_smbclient_s_authentication_file(tmp_path):
    path = private(tmp_path / "smb", f"# comment\nusername = OFFICE\\alice\npassword = {SECRET}\n")
    login = from_smbclient_file(path)
    assert (login.user, login.domain, login.password.get_secret_value()) == ("alice", "OFFICE", SECRET)
    inv = ini(f"nastune_smb_credentials={path}")
    assert inv.login(inv.clients[0], "smb") == login


def test_a_credentials_file_others_can_read_is_refused(tmp_path):
    path = tmp_path / "smb"
    path.write_text("username = alice\npassword = x\n")
    path.chmod(0o644)
    with pytest.raises(inventory.InventoryError, match=r"others may read it \(mode 644\): chmod 600"):
        ini(f"nastune_smb_credentials={path}")
    path.chmod(0o600)
    path.write_text("username = alice\n")
    with pytest.raises(inventory.InventoryError, match="needs a username and a password line"):
        ini(f"nastune_smb_credentials={path}")


def test_a_netrc_gives_the_login_of_the_nas_s_address_or_its_default(tmp_path):
    path = private(
        tmp_path / "netrc",
        "machine 198.51.100.10 login alice password one\nmachine other login x password y\ndefault login anon password z\n",
    )
    assert from_netrc(path, ["198.51.100.10", "filer"]).user == "alice"
    assert from_netrc(path, ["192.0.2.99"]).user == "anon"
    inv = ini(f"nastune_address=198.51.100.10 nastune_ftp_dir=pub nastune_ftp_netrc={path}")
    found = inv.login(inv.clients[0], "ftp")
    assert isinstance(found, Login)
    assert found.password.get_secret_value() == "one"
    private(path, "machine other login x password y\n")
    with pytest.raises(inventory.InventoryError, match=r"no machine entry for 198\.51\.100\.10 or 192\.0\.2\.10"):
        ini(f"nastune_address=198.51.100.10 nastune_ftp_netrc={path}")


@pytest.mark.skipif(program() is None, reason="ansible-core is not installed")
def test_a_password_in_ansible_vault_is_decrypted_through_ansible_vault(tmp_path, monkeypatch):
    vault = str(Path(str(program())).with_name("ansible-vault"))
    secret_file = private(tmp_path / "vault-pass", "vault password\n")
    encrypted = subprocess.run(
        [vault, "encrypt_string", "--vault-password-file", str(secret_file)],
        input=SECRET,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "group_vars" / "nas.yml").write_text("nastune_smb_user: alice\nnastune_smb_password: " + encrypted)
    hosts = tmp_path / "hosts.ini"
    hosts.write_text("[nas]\nfiler ansible_host=192.0.2.10 nastune_smb_share=data\n[clients]\nc1\n")
    monkeypatch.delenv("ANSIBLE_VAULT_PASSWORD_FILE", raising=False)
    with pytest.raises(inventory.InventoryError, match="encrypted with Ansible Vault: set ANSIBLE_VAULT_PASSWORD_FILE"):
        inventory.load(hosts)
    monkeypatch.setenv("ANSIBLE_VAULT_PASSWORD_FILE", str(secret_file))
    inv = inventory.load(hosts)
    assert inv.nas.logins["smb"].password.get_secret_value() == SECRET
    private(secret_file, "wrong\n")
    with pytest.raises(inventory.InventoryError) as e:
        inventory.load(hosts)
    assert "ansible-vault could not decrypt it" in str(e.value)
    assert SECRET not in str(e.value)


def test_a_login_file_without_the_targets_entry_is_a_usage_error(tmp_path):
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 192.0.2.99 login alice password s3cret\n")
    netrc.chmod(0o600)
    args = ["bench", "--target", "ftp://127.0.0.1/", "--login-file", str(netrc), "-w", "seq-read", "--size", "1M"]
    proc = run_cli(*args, check=False)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "internal error" not in proc.stderr
    assert "no machine entry for 127.0.0.1" in proc.stderr
    assert "s3cret" not in proc.stderr
