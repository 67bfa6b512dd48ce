"""Reading JSON that nastune did not necessarily write (plans, results, journals, snapshot
records) with bounds and errors that name the file: size, nesting depth, NaN and infinities
are checked before anything uses the data."""

from __future__ import annotations

import json
import math
import os
import re
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from nastune.errors import UsageError

if TYPE_CHECKING:
    from pydantic import ValidationError

MAX_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 64  # nastune's own files nest at most ~8 deep


def _constant(name: str) -> NoReturn:
    raise UsageError(f"{name} is not a number JSON allows")


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise UsageError(f"{text[:20]} is out of range")
    return value


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def _too_deep(text: str) -> bool:
    """True when an array/object opens deeper than MAX_DEPTH (strings skipped): checked before
    json.loads, which would raise RecursionError deep inside on hostile nesting."""
    depth = 0
    for m in _BRACKET.finditer(_STRING.sub("", text)):
        depth += 1 if m.group() in "[{" else -1
        if depth > MAX_DEPTH:
            return True
    return False


def loads(text: str, where: str) -> object:
    """Parse JSON text; ValueError naming `where` for anything malformed or hostile."""
    if _too_deep(text):
        raise UsageError(f"{where}: JSON nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, parse_constant=_constant, parse_float=_float)
    except RecursionError:
        raise UsageError(f"{where}: JSON nested too deeply") from None
    except ValueError as e:
        raise UsageError(f"{where}: not JSON ({e})") from None


def read_text(path: Path, limit: int = MAX_BYTES) -> str:
    """A regular file's text, bounded; never blocks on a FIFO or reads a device. `-` is
    standard input (how a coordinator hands a plan to nastune on a NAS over SSH)."""
    if str(path) == "-":
        return _decode(sys.stdin.buffer.read(limit + 1), "standard input", limit)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise UsageError(f"{path}: is a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(f"{path}: not a regular file")
        if info.st_size > limit:
            raise UsageError(f"{path}: larger than {limit // (1024 * 1024)} MiB")
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(limit + 1)
    finally:
        os.close(fd)
    return _decode(data, path, limit)


def _decode(data: bytes, where: object, limit: int) -> str:
    if len(data) > limit:
        raise UsageError(f"{where}: larger than {limit // (1024 * 1024)} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"{where}: not UTF-8 text (byte {e.start})") from None


def load(path: Path) -> object:
    return loads(read_text(path), "standard input" if str(path) == "-" else str(path))


def load_versioned(path: Path, schema: str, what: str) -> dict:
    return versioned(path, load(path), schema, what)


def versioned(path: Path, data: object, schema: str, what: str) -> dict:
    """`data`, read from `path`, when it carries `schema`; else a UsageError naming what it is."""
    if not isinstance(data, dict) or data.get("schema") != schema:
        found = data.get("schema") if isinstance(data, dict) else None
        said = f"; it is a {str(found)[:60]} file" if isinstance(found, str) and found.startswith("nastune.") else ""
        raise UsageError(f'{path}: not a nastune {what} (expected "schema": "{schema}"){said}')
    return data


def dumps(data: object, indent: int | None = 1) -> str:
    """JSON for output: NaN and infinities are a bug, never printed as non-JSON."""
    return json.dumps(data, indent=indent, allow_nan=False)


def field_name(loc: tuple) -> str:
    """pydantic's error location as a person reads it: changes[3].new."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def invalid(path: object, error: ValidationError) -> str:
    """The first error of a pydantic ValidationError, naming the file and the field."""
    first = error.errors()[0]
    return f"{path}: field {field_name(tuple(first['loc']))}: {first['msg']}"
