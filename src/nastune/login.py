"""A user name and password for a share, kept the way operators keep them and given to the
client tools only on their standard input: smbclient reads its authentication file from
/dev/stdin (`-A`), curl its configuration from `-K -`. A password never reaches a command line
(`ps` shows every argument), a log, a result, a report or an error message: it is a SecretStr,
which prints as stars."""

from __future__ import annotations

import re
import shlex
import stat
from pathlib import Path

from pydantic import BaseModel, SecretStr, ValidationError, field_validator

from nastune.errors import UsageError

# what both file formats can carry on one line: no line break or NUL; a user name also no `:`
# (curl splits user:password at the first) and no `\` or `%` (a domain separator to smbclient)
NAME = re.compile(r"[^\x00-\x1f\x7f:\\%]{1,256}")


class Login(BaseModel):
    user: str
    password: SecretStr
    domain: str | None = None

    @field_validator("user", "domain")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        if value is not None and not NAME.fullmatch(value):
            raise UsageError("a name of 1-256 characters without line breaks, ':', '\\' or '%'")
        return value

    @field_validator("password")
    @classmethod
    def _password(cls, value: SecretStr) -> SecretStr:
        text = value.get_secret_value()
        if re.search(r"[\x00\n\r]", text) or text[:1] in (" ", "\t") or len(text) > 1024:
            # smbclient's file format drops a leading blank and ends a value at a line break
            raise UsageError("a password of at most 1024 characters, on one line, not starting with a blank")
        return value

    def smbclient_file(self) -> str:
        """smbclient's authentication file (`--authentication-file`), for its standard input."""
        lines = [f"username = {self.user}", f"password = {self.password.get_secret_value()}"]
        return "\n".join(lines + ([f"domain = {self.domain}"] if self.domain else [])) + "\n"

    def curl_config(self) -> str:
        """curl's configuration (`-K -`): the user option, quoted as curl's config reads it."""
        quoted = (self.user + ":" + self.password.get_secret_value()).replace("\\", "\\\\").replace('"', '\\"')
        return f'user = "{quoted}"\n'


class LoginError(UsageError):
    """A credentials file that cannot be used; the message names the file, never its secret."""


def private_text(path: Path, what: str) -> str:
    """A credentials file's text, refused when other users may read it (as ssh refuses a key)."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise LoginError(f"{what} {path}: not a regular file")
        if info.st_mode & 0o077:
            raise LoginError(f"{what} {path}: others may read it (mode {info.st_mode & 0o777:o}): chmod 600 {path}")
        if info.st_size > 65536:
            raise LoginError(f"{what} {path}: larger than 64 KiB: not a credentials file")
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise LoginError(f"{what} {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise LoginError(f"{what} {path}: not UTF-8 text") from None


def from_smbclient_file(path: Path) -> Login:
    """A Login from a file in smbclient's authentication-file format (username, password and
    domain lines, `name = value`), as `mount.cifs credentials=` and smbclient -A read it."""
    return _smbclient_text(private_text(path, "SMB credentials file"), path)


def from_either(path: Path, text: str, hosts: list[str]) -> Login:
    """A login from credentials in either format operators keep them in (smbclient's
    authentication file, or a netrc), read from `path` or, as `-`, given as `text`."""
    if re.search(r"(?im)^\s*(username|password)\s*=", text):
        return _smbclient_text(text, path)
    return _netrc_text(text, path, hosts)


def _smbclient_text(text: str, path: Path) -> Login:
    found: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, value = line.partition("=")
        key = name.strip().lower()
        if sep and key in ("username", "user", "password", "pass", "domain"):
            found[{"user": "username", "pass": "password"}.get(key, key)] = value.lstrip(" \t")
    user, domain = found.get("username", ""), found.get("domain")
    if "%" in user:  # smbclient's user%password form
        user, found["password"] = user.split("%", 1)
    if "\\" in user or "/" in user:  # DOMAIN\user
        domain, user = re.split(r"[\\/]", user, maxsplit=1)
    if not user or "password" not in found:
        raise LoginError(f"SMB credentials file {path}: needs a username and a password line")
    return make(user, found["password"], domain, f"SMB credentials file {path}")


def from_netrc(path: Path, hosts: list[str]) -> Login:
    """The login a netrc file gives the first of `hosts` (its default entry otherwise)."""
    return _netrc_text(private_text(path, "netrc file"), path, hosts)


def _netrc_text(text: str, path: Path, hosts: list[str]) -> Login:
    """netrc(5)'s tokens: `machine NAME` or `default`, then `login`, `password`, `account` (a
    `macdef` is not a login and ends the reading, as it holds commands up to a blank line)."""
    try:
        words = shlex.split(text.split("macdef", 1)[0], comments=True)
    except ValueError as e:
        raise LoginError(f"netrc file {path}: {e}") from None
    entries: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    pairs = iter(words)
    for word in pairs:
        if word == "default":
            current = entries.setdefault("default", {})
        elif word in ("machine", "login", "password", "account"):
            value = next(pairs, None)
            if value is None:
                raise LoginError(f"netrc file {path}: `{word}` without a value")
            if word == "machine":
                current = entries.setdefault(value, {})
            elif current is None:
                raise LoginError(f"netrc file {path}: `{word}` before any `machine` or `default`")
            else:
                current[word] = value
    for host in [*hosts, "default"]:
        entry = entries.get(host)
        if entry and entry.get("login"):
            return make(entry["login"], entry.get("password", ""), None, f"netrc file {path}")
    raise LoginError(f"netrc file {path}: no machine entry for {' or '.join(hosts)} and no default")


def make(user: str, password: str, domain: str | None, where: str) -> Login:
    """A Login, or LoginError naming `where` and the field (never the password itself)."""
    try:
        return Login(user=user, password=SecretStr(password), domain=domain or None)
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise LoginError(f"{where}: {field}: {str(first['msg']).removeprefix('Value error, ')}") from None
