"""The hosts nastune works with: one NAS and its clients, in an Ansible inventory, so the same
inventory drives `ansible-playbook` and nastune; read by Ansible itself where it is installed
(any inventory Ansible takes), else by nastune's reader of Ansible's INI format, which refuses
what it cannot read as Ansible would. Groups `nas` (exactly one host) and `clients` (through
their children). The variables nastune reads, Ansible's connection variables among them, are
listed in remote/variables.py (and docs/your-nas.md); a `nastune_*` variable it does not know
is refused, naming the closest known one."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError, field_validator

from nastune import login as logins
from nastune.conf import safe
from nastune.errors import Failure, UsageError
from nastune.jsonfile import field_name, read_text
from nastune.login import Login
from nastune.protocols import PROTOCOLS
from nastune.remote import inventory_ansible, inventory_ini, variables
from nastune.remote.inventory_ini import Members, Vars
from nastune.units import rate_bits

SHARE_VARS = {name: p.share_var for name, p in PROTOCOLS.items()}
MAX_BYTES = 1 << 20


class InventoryError(Failure, ValueError):
    """An inventory that cannot be used; the message names the file, host or variable."""

    code = 2  # bad input


class Host(BaseModel):
    model_config = {"extra": "forbid"}

    name: str = Field(pattern=f"^{safe.HOST_NAME}$")
    address: str
    user: str | None = Field(default=None, pattern=r"^[a-z_][a-z0-9_.-]{0,31}$")
    port: int = Field(default=22, ge=1, le=65535)
    key: Path | None = None
    ssh_args: list[str] = []
    local: bool = False  # ansible_connection=local: this machine itself, no SSH
    protocols: list[str] = []
    mount: str | None = None
    fio_server: str | None = Field(default=None, pattern=r"^[^\s,/]+,\d{1,5}$")
    logins: dict[str, Login] = {}  # by protocol; a client's own override the NAS's
    smb_protection: Literal["sign", "encrypt", "off"] | None = None  # the client's SMB sessions' requirement
    # nastune on the host; on a client only when the inventory says so: then nastune reads and
    # tunes that client too (its TCP stack, its NFS mounts)
    command: list[str] | None = Field(default=None, min_length=1)

    @field_validator("address")
    @classmethod
    def _host(cls, value: str) -> str:
        return safe.host_address(value, "a host")  # ssh, ping and ip take it: never an option

    @field_validator("fio_server")
    @classmethod
    def _fio_host(cls, value: str | None) -> str | None:
        if value is not None:
            safe.host_address(value.rpartition(",")[0], "its host")
        return value

    @field_validator("protocols")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        unknown = [p for p in value if p not in PROTOCOLS]
        if unknown:
            raise UsageError(f"unknown protocol {unknown[0]!r}; known: {', '.join(PROTOCOLS)}")
        return value

    @field_validator("mount")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith("/"):
            raise UsageError("an absolute path")
        return value


class Nas(Host):
    data_address: str
    shares: dict[str, str] = {}
    link_bps: int | None = Field(default=None, gt=0)
    link_overhead: int = Field(default=38, ge=0, le=1000)
    command: list[str] | None = Field(default=["nastune"], min_length=1)
    lab: bool = False
    iperf3_port: int = Field(default=5201, ge=1, le=65535)
    read_set: list[tuple[str, int]] = []

    @field_validator("data_address")
    @classmethod
    def _data_host(cls, value: str) -> str:
        return safe.host_address(value, "a host")

    @field_validator("shares")
    @classmethod
    def _share_names(cls, value: dict[str, str]) -> dict[str, str]:
        for protocol, share in value.items():
            safe.remote_name(share, SHARE_VARS[protocol])
        return value

    @field_validator("read_set")
    @classmethod
    def _below_share(cls, value: list[tuple[str, int]]) -> list[tuple[str, int]]:
        for path, size in value:
            safe.remote_name(path, "a path")
            if path.startswith("/") or ".." in path.split("/") or not path.strip("/"):
                raise UsageError(f"{path!r}: a path below the share's root")
            if size <= 0:
                raise UsageError(f"{path}: a size in bytes above 0")
        return value


class Inventory(BaseModel):
    path: str
    nas: Nas
    clients: list[Host]

    def client(self, name: str) -> Host:
        for host in self.clients:
            if host.name == name:
                return host
        raise InventoryError(f"{self.path}: no client {name!r}; clients: {', '.join(h.name for h in self.clients)}")

    @property
    def tuned_clients(self) -> list[Host]:
        """The clients nastune reads and tunes: those the inventory gives a nastune_command."""
        return [c for c in self.clients if c.command]

    def select(self, names: str) -> list[Host]:
        """`all`, or client names separated by commas."""
        if names == "all":
            return list(self.clients)
        return [self.client(n.strip()) for n in names.split(",") if n.strip()]

    def protocols_of(self, host: Host) -> list[str]:
        offered = [p for p in PROTOCOLS if p in self.nas.shares]
        return [p for p in (host.protocols or offered) if p in offered]

    def login(self, host: Host, protocol: str) -> Login | None:
        """The login `host` uses for `protocol`'s share: its own, else the NAS's (None: a guest)."""
        return host.logins.get(protocol) or self.nas.logins.get(protocol)


def _first(v: Vars, *names: str, default: object = None) -> object:
    """The first variable set of its names (Ansible's older `ansible_ssh_*` spellings after)."""
    return next((v[n] for n in names if v.get(n) is not None), default)


def _text(found: object, var: str, where: str) -> str | None:
    """A variable's value as nastune reads it: YAML's numbers, booleans and lists included; a
    template Ansible would render at run time is refused (nastune reads what ansible-inventory
    prints, which is unrendered)."""
    if found is None:
        return None
    if isinstance(found, bool):
        return "true" if found else "false"
    if isinstance(found, list | tuple):
        return ",".join(str(_text(item, var, where)) for item in found)
    if isinstance(found, dict):
        raise InventoryError(f"{where}: {var}: a mapping, where nastune needs one value")
    text = str(found)
    if "{{" in text or "{%" in text:
        raise InventoryError(f"{where}: {var}: a Jinja template ({text!r}); nastune needs the value itself")
    return text


def _host_fields(name: str, v: Vars, where: str, nas_address: str | None = None) -> dict:
    where = f"{where}, host {name}"
    why = variables.unknown(list(v))
    if why:
        raise InventoryError(f"{where}: {why}")
    get = lambda var, *more: _text(_first(v, var, *more), var, where)
    address = get("ansible_host", "ansible_ssh_host") or name
    return {
        "name": name,
        "address": address,
        "user": get("ansible_user", "ansible_ssh_user"),
        "port": get("ansible_port", "ansible_ssh_port") or 22,
        "key": get("ansible_ssh_private_key_file", "ansible_private_key_file"),
        "ssh_args": _words(v.get("ansible_ssh_common_args"), where, "ansible_ssh_common_args"),
        "local": v.get("ansible_connection") == "local",
        "protocols": [p for p in (get("nastune_protocols") or "").split(",") if p],
        "mount": get("nastune_mount"),
        "fio_server": get("nastune_fio_server"),
        "smb_protection": get("nastune_smb_protection"),
        **({"command": _words(v["nastune_command"], where, "nastune_command")} if "nastune_command" in v else {}),
        "logins": _logins(v, where, [a for a in (nas_address, address, name) if a]),
    }


def build(members: Members, where: str) -> Inventory:
    """The inventory of the groups `nas` (one host) and `clients`, as either reader gives them."""
    nas = members.get("nas", [])
    if len(nas) != 1:
        raise InventoryError(f"{where}: group [nas] must name exactly one host (found {len(nas)})")
    clients = members.get("clients", [])
    if not clients:
        raise InventoryError(f"{where}: group [clients] names no host")
    name, v = nas[0]
    at = f"{where}, host {name}"
    get = lambda var: _text(v.get(var), var, at)
    data_address = get("nastune_address")
    fields = _host_fields(name, v, where, data_address)
    data_address = data_address or fields["address"]
    extra = {
        "data_address": data_address,
        "shares": {p: share for p, var in SHARE_VARS.items() if (share := get(var))},
        "link_bps": _rate(get("nastune_link_rate"), at),
        "link_overhead": get("nastune_link_overhead") or 38,
        "command": fields.get("command", ["nastune"]),
        "lab": get("nastune_lab") or "false",
        "read_set": _read_set(get("nastune_read_set") or "", at),
        "iperf3_port": get("nastune_iperf3_port") or 5201,
    }
    return Inventory(
        path=where,
        nas=_make(Nas, {**fields, **extra}, where),
        clients=[_make(Host, _host_fields(n, hv, where, data_address), where) for n, hv in clients],
    )


def parse(text: str, where: str) -> Inventory:
    """An INI inventory read without Ansible (inventory_ini.py)."""
    try:
        return build(inventory_ini.read(text, where), where)
    except InventoryError:
        raise
    except ValueError as e:
        raise InventoryError(str(e)) from None


def _words(found: object, where: str, var: str) -> list[str]:
    if isinstance(found, list | tuple):
        return [str(_text(word, var, where)) for word in found]
    try:
        return shlex.split(_text(found, var, where) or "")
    except ValueError as e:
        raise InventoryError(f"{where}: {var}: {e}") from None


def _read_set(text: str, where: str) -> list[tuple[str, str]]:
    """PATH:BYTES,PATH:BYTES; the model checks the paths and sizes."""
    pairs = []
    for item in filter(None, text.split(",")):
        path, colon, size = item.rpartition(":")
        if not colon:
            raise InventoryError(f"{where}: nastune_read_set: {item!r} is not PATH:BYTES")
        pairs.append((path, size))
    return pairs


def _rate(text: str | None, where: str) -> int | None:
    if text is None:
        return None
    try:
        return rate_bits(text)
    except ValueError as e:
        raise InventoryError(f"{where}: nastune_link_rate: {e}") from None


def _secret(found: object, var: str, where: str) -> str | None:
    """A password variable's value: Ansible Vault's encrypted form decrypted (ansible-inventory
    prints it encrypted), anything else as `_text` reads it."""
    if isinstance(found, dict) and set(found) == {"__ansible_vault"}:
        try:
            return inventory_ansible.decrypt(str(found["__ansible_vault"]), f"{where}: {var}")
        except ValueError as e:
            raise InventoryError(str(e)) from None
    return _text(found, var, where)


def _logins(v: Vars, where: str, hosts: list[str]) -> dict[str, Login]:
    """A host's login for each protocol that has logins: PREFIX_user with PREFIX_password (and
    PREFIX_domain), or the protocol's credentials file; none of them: no login (a guest)."""
    found = {}
    for name, protocol in PROTOCOLS.items():
        prefix, file_var = protocol.login_var, protocol.login_file_var
        if not prefix:
            continue
        user = _text(v.get(f"{prefix}_user"), f"{prefix}_user", where)
        password = _secret(v.get(f"{prefix}_password"), f"{prefix}_password", where)
        domain = _text(v.get(f"{prefix}_domain"), f"{prefix}_domain", where) if protocol.login_domain else None
        path = _text(v.get(file_var), file_var, where)
        try:
            if path and (user or password):
                raise InventoryError(f"{where}: {file_var} and {prefix}_user/{prefix}_password: give one of them")
            if path:
                found[name] = protocol.login_from_file(Path(path).expanduser(), hosts)
            elif user is not None or password is not None:
                if not user or password is None:
                    raise InventoryError(f"{where}: {prefix}_user and {prefix}_password go together (one is missing)")
                found[name] = logins.make(user, password, domain, f"{where}: {prefix}")
        except logins.LoginError as e:
            raise InventoryError(f"{where}: {e}") from None
    return found


M = TypeVar("M", bound=Host)


def _make(model: type[M], fields: dict, where: str) -> M:
    try:
        return model(**fields)
    except ValidationError as e:
        first = e.errors()[0]
        field = field_name(tuple(first["loc"]))
        base = field.split("[")[0].split(".")[0]
        var = "" if base in ("shares", "logins") else variables.field_variable(base) or field  # those name it
        msg = str(first["msg"]).removeprefix("Value error, ")
        raise InventoryError(f"{where}, host {fields['name']}: {f'{var}: ' if var else ''}{msg}") from None


def load(path: Path, ansible: str | Literal[False] | None = None) -> Inventory:
    """The inventory at `path`, read by Ansible where it is installed (`ansible`: the
    ansible-inventory to run, found by default; False: never), by nastune's INI reader otherwise."""
    ansible = inventory_ansible.program() if ansible is None else ansible
    try:
        if not path.exists():
            raise InventoryError(f"{path}: No such file or directory")
        if ansible:
            return build(inventory_ansible.read(path, ansible), str(path))
        inventory_ini.refuse_unsupported(path)
        text = read_text(path, MAX_BYTES)
    except InventoryError:
        raise
    except ValueError as e:
        raise InventoryError(str(e)) from None
    return parse(text, str(path))
