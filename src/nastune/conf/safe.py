"""What a value written into a configuration file may contain.

A plan or a scenario file is data, and a value that carries a newline, a brace, a semicolon or a
quote can close the line, block or share it belongs to and open another (`root preexec = ...` in
smb.conf, a second EXPORT in ganesha.conf, `exec,suid` in fstab). Each format gets a whitelist;
anything else is refused with the field named, before any file is touched."""

from __future__ import annotations

import ipaddress
import re

from nastune.errors import UsageError

SAMBA_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _:.-]{0,79}")
SAMBA_SECTION = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.$-]{0,79}")
SAMBA_VALUE = re.compile(r"[A-Za-z0-9 _.,:/=%@+*-]{0,512}")
GANESHA_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
GANESHA_VALUE = re.compile(r"[A-Za-z0-9_./:+-]{1,256}")
HOST_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}"  # an inventory host's name, as plans and journals name it
ZFS_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")  # a lab pool's or dataset's own name (one component)
ZFS_PROPERTY = re.compile(r"[a-z][a-z0-9_:.@-]{0,63}")
ZFS_VALUE = re.compile(r"[A-Za-z0-9_.:/@+-]{1,128}")  # a property's value as `zfs set` takes it: no spaces
MOUNT_OPTION = re.compile(r"[A-Za-z0-9_.:/@+-]{1,128}")  # one option or value: no comma, no space
HOST = re.compile(r"[A-Za-z0-9_.:/*@\[\]-]{1,255}")
# A file or share name that reaches a client tool (smbclient's command language, which splits
# on `;` even inside quotes; an FTP control line; a URL): no separators of any of those, no
# quotes, no URL syntax, no control characters, no option-like start of a path component.
REMOTE_NAME = re.compile(r"(?!-)(?!.*/-)[A-Za-z0-9 _.,+@=/-]{1,1024}")
# A host as ssh, ping and ip take it: a DNS name (labels of letters, digits, `_` and inner
# `-`) or an IPv4/IPv6 literal; never anything that starts like an option.
_LABEL = r"[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?"
HOSTNAME = re.compile(rf"(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*\.?")


def check(pattern: re.Pattern, value: object, what: str) -> str:
    """`value` as text if it matches `pattern` whole; ValueError naming `what` otherwise."""
    text = str(value)
    if not pattern.fullmatch(text):
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise UsageError(
            f"{what}: {shown!r} is not allowed here (no newlines, braces, semicolons, "
            "quotes or other characters that could change the file's structure)"
        )
    return text


def remote_name(value: str, what: str) -> str:
    """`value` if it can be passed to a client tool as one file or share name; ValueError naming
    `what` otherwise (checked again where each tool is called, whatever the value's origin)."""
    if not REMOTE_NAME.fullmatch(value) or value.strip() != value:
        raise UsageError(
            f"{what}: {value[:60]!r} cannot be passed safely to the client tools (letters, digits, spaces "
            "inside, and _ . , + @ = / - are allowed; no ; quotes $ ` \\ ? # % or control characters, and no "
            "part that starts with -)"
        )
    return value


def host_address(value: str, what: str) -> str:
    """`value` if it is a host name or an IP literal; ValueError naming `what` otherwise."""
    try:
        ipaddress.ip_address(value)
        return value
    except ValueError:
        pass
    if not HOSTNAME.fullmatch(value) or value.replace(".", "").isdigit():
        raise UsageError(f"{what}: {value[:60]!r} is not a host name or an IP address")
    return value
