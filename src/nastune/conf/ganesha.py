"""NFS-Ganesha's configuration language: nested `NAME { key = value; }` blocks.

Keys are case-insensitive in Ganesha, so they are kept lower-cased; values are
lists (`Protocols = 3, 4;`). `%include "file"`, `%dir "/etc/ganesha/*.conf"` and
`%url rados://...` lines are returned with their line, not followed: the caller decides which files it may
read. A block with an error is skipped and its error kept (with its line), and
the blocks around it are read: one bad value must not lose a whole file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TOKEN = re.compile(r'\s+|#[^\n]*|"(?:[^"\\\n]|\\.)*"|[{};=,]|%include\b|%dir\b|%url\b|[^\s{};=,#"]+')
DIRECTIVES = ("%include", "%dir", "%url")
MAX_DEPTH = 32  # Ganesha's own blocks nest three deep (EXPORT, FSAL, ...): deeper is not a configuration


class GaneshaSyntaxError(ValueError):
    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass
class Block:
    name: str
    params: dict[str, list[str]] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)
    line: int = 0

    def get(self, key: str) -> list[str] | None:
        return self.params.get(key.lower())

    def first(self, key: str) -> str | None:
        values = self.get(key)
        return values[0] if values else None

    def children(self, name: str) -> list[Block]:
        return [b for b in self.blocks if b.name.lower() == name.lower()]


@dataclass
class Parsed:
    top: Block  # every block read, at the top level of the file
    includes: list[tuple[int, str]] = field(default_factory=list)  # (line, file) of each %include
    urls: list[tuple[int, str]] = field(default_factory=list)  # (line, URL) of each %url (rados://...)
    dirs: list[tuple[int, str]] = field(default_factory=list)  # (line, directory or glob) of each %dir
    errors: list[GaneshaSyntaxError] = field(default_factory=list)  # each skipped block's error


def _tokens(text: str, errors: list[GaneshaSyntaxError]) -> list[tuple[int, str]]:
    """The tokens with their lines; a quote left open is an error, and the rest of its line is skipped."""
    found, line, pos = [], 1, 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            errors.append(GaneshaSyntaxError(line, f"unexpected character {text[pos]!r}"))
            end = text.find("\n", pos)
            pos = len(text) if end < 0 else end
            continue
        tok = m.group(0)
        if not tok.isspace() and not tok.startswith("#"):
            found.append((line, tok))
        line += tok.count("\n")
        pos = m.end()
    return found


class _Reader:
    def __init__(self, tokens: list[tuple[int, str]]):
        self.tokens, self.i = tokens, 0

    def peek(self, ahead: int = 0) -> str | None:
        at = self.i + ahead
        return self.tokens[at][1] if at < len(self.tokens) else None

    def line(self) -> int:
        return self.tokens[min(self.i, len(self.tokens) - 1)][0] if self.tokens else 1

    def block(self, name: str, line: int, depth: int = 1) -> Block:
        """The body of a block whose `{` was read, to its `}` (GaneshaSyntaxError otherwise)."""
        if depth > MAX_DEPTH:
            raise GaneshaSyntaxError(line, f"blocks nested more than {MAX_DEPTH} deep")
        block = Block(name, line=line)
        while True:
            tok = self.peek()
            if tok is None:
                raise GaneshaSyntaxError(line, f"block {name} is not closed")
            if tok == "}":
                self.i += 1
                if self.peek() == ";":
                    self.i += 1
                return block
            self.item(block, depth)

    def item(self, into: Block, depth: int = 0) -> None:
        line, tok = self.tokens[self.i]
        if tok in DIRECTIVES or tok in ("{", ";", "=", ","):
            raise GaneshaSyntaxError(line, f"unexpected {tok!r}")
        if self.peek(1) == "{":
            self.i += 2
            into.blocks.append(self.block(tok, line, depth + 1))
        elif self.peek(1) == "=":
            self.i += 2
            values: list[str] = []
            while self.peek() not in (";", "}", None):
                if self.peek() in ("{", "=", *DIRECTIVES):
                    raise GaneshaSyntaxError(self.line(), f"unexpected {self.peek()!r} in value of {tok}")
                if self.peek() != ",":
                    values.append(self.tokens[self.i][1].strip('"'))
                self.i += 1
            if self.peek() is None:
                raise GaneshaSyntaxError(line, f"missing ';' after {tok}")
            if self.peek() == ";":
                self.i += 1
            into.params[tok.lower()] = values
        else:
            after = self.peek(1)
            raise GaneshaSyntaxError(line, f"{tok!r} is followed by {after!r}, not '=' or '{{'")

    def skip_block(self, start: int) -> None:
        """Past the end of the top-level item that began at token `start`: its braces balanced,
        or the next line that starts a new top-level item when they never balance."""
        depth, i = 0, start
        while i < len(self.tokens):
            tok = self.tokens[i][1]
            depth += (tok == "{") - (tok == "}")
            i += 1
            if depth <= 0 and tok in ("}", ";") and i > start + 1:
                break
        self.i = max(i, start + 1)


def parse(text: str) -> Parsed:
    """Every block of the file that reads, and the errors of those that do not."""
    errors: list[GaneshaSyntaxError] = []
    reader = _Reader(_tokens(text, errors))
    done = Parsed(Block("<top>"), errors=errors)
    while reader.peek() is not None:
        line, tok = reader.tokens[reader.i]
        if tok in DIRECTIVES:
            target = reader.peek(1)
            if target is None or target in ("{", "}", ";", "=", ",", *DIRECTIVES):
                errors.append(GaneshaSyntaxError(line, f"{tok} without a source"))
                reader.i += 1
                continue
            into = {"%include": done.includes, "%dir": done.dirs, "%url": done.urls}[tok]
            into.append((line, target.strip('"')))
            reader.i += 2
            continue
        if tok == "}":
            errors.append(GaneshaSyntaxError(line, "'}' without an open block"))
            reader.i += 1
            continue
        start = reader.i
        try:
            reader.item(done.top)
        except GaneshaSyntaxError as e:
            what = f"the {tok} block from line {line}" if reader.peek(1) is not None and start != reader.i else tok
            errors.append(GaneshaSyntaxError(e.line, f"{str(e).split(': ', 1)[1]} ({what} is left out)"))
            reader.skip_block(start)
    errors.sort(key=lambda e: e.line)
    return done


def check(text: str, before: str = "") -> None:
    """An edit of `before` must not leave a block unreadable that was readable: the first error
    beyond those `before` already had."""
    errors, had = parse(text).errors, parse(before).errors if before else []
    if len(errors) > len(had):
        raise errors[len(had)] if [str(e) for e in errors[: len(had)]] == [str(e) for e in had] else errors[0]


def block_spans(text: str) -> list[tuple[str, int, int, int]]:
    """(name, start of name, offset after the closing brace, depth) of every block, for edits
    that must leave the rest of the file byte for byte."""
    spans: list[tuple[str, int, int, int]] = []
    stack: list[tuple[str, int, int]] = []
    prev: tuple[int, str] | None = None
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if tok.isspace() or tok.startswith("#"):
            continue
        if tok == "{" and prev is not None:
            stack.append((prev[1], prev[0], len(stack)))
        elif tok == "}" and stack:
            name, start, depth = stack.pop()
            spans.append((name, start, m.end(), depth))
        prev = (m.start(), tok)
    return sorted(spans, key=lambda s: s[1])


@dataclass(frozen=True)
class Param:
    """A block's own parameter as the reader takes it, with where it is written: `start` at its
    key, `end` after its `;` (or where the `}` closes a block that left the `;` out)."""

    key: str  # lower-cased, as Ganesha compares it
    value: str  # as written between `=` and `;`, one pair of quotes taken off
    start: int
    end: int


def params(text: str, start: int, end: int) -> list[Param]:
    """The parameters of the block at `text[start:end]` (a span of block_spans), not of the
    blocks nested in it, in the order written (a later one is the one Ganesha keeps)."""
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text, start, end)]
    tokens = [tok for tok in tokens if not tok[2].isspace() and not tok[2].startswith("#")]
    found, depth, i = [], 0, 0
    while i < len(tokens):
        at, _, tok = tokens[i]
        depth += (tok == "{") - (tok == "}")
        if depth == 1 and i + 1 < len(tokens) and tokens[i + 1][2] == "=" and tok not in "{};=,":
            j = i + 2
            while j < len(tokens) and tokens[j][2] not in (";", "}", "{"):
                j += 1
            stop = tokens[j][0] if j < len(tokens) else end
            value = text[tokens[i + 1][1] : stop].strip()
            value = value[1:-1] if len(value) > 1 and value[0] == value[-1] == '"' else value
            closed = j < len(tokens) and tokens[j][2] == ";"
            found.append(Param(tok.lower(), value, at, tokens[j][1] if closed else stop))
            i = j + 1 if closed else j
            continue
        i += 1
    return found
