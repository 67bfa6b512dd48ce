"""NFS-Ganesha's configuration language: nested `NAME { key = value; }` blocks.

Keys are case-insensitive in Ganesha, so they are kept lower-cased; values are
lists (`Protocols = 3, 4;`). `%include` lines are returned, not followed: the
caller decides which files it may read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TOKEN = re.compile(r'\s+|#[^\n]*|"(?:[^"\\]|\\.)*"|[{};=,]|%include\b|[^\s{};=,#"]+')


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


def _tokens(text: str):
    line = 1
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise GaneshaSyntaxError(line, f"unexpected character {text[pos]!r}")
        tok = m.group(0)
        if not tok.isspace() and not tok.startswith("#"):
            yield line, tok
        line += tok.count("\n")
        pos = m.end()


def parse(text: str) -> tuple[Block, list[str]]:
    """The top-level block (holding every block of the file) and the %include targets."""
    top = Block("<top>")
    stack = [top]
    includes: list[str] = []
    tokens = list(_tokens(text))
    i = 0
    while i < len(tokens):
        line, tok = tokens[i]
        if tok == "%include":
            if i + 1 >= len(tokens):
                raise GaneshaSyntaxError(line, "%include without a file")
            includes.append(tokens[i + 1][1].strip('"'))
            i += 2
        elif tok == "}":
            if len(stack) == 1:
                raise GaneshaSyntaxError(line, "'}' without an open block")
            stack.pop()
            i += 1
            if i < len(tokens) and tokens[i][1] == ";":
                i += 1
        elif i + 1 < len(tokens) and tokens[i + 1][1] == "{":
            block = Block(tok, line=line)
            stack[-1].blocks.append(block)
            stack.append(block)
            i += 2
        elif i + 1 < len(tokens) and tokens[i + 1][1] == "=":
            values: list[str] = []
            i += 2
            while i < len(tokens) and tokens[i][1] not in (";", "}"):
                if tokens[i][1] == "{" or tokens[i][1] == "=":
                    raise GaneshaSyntaxError(tokens[i][0], f"unexpected {tokens[i][1]!r} in value of {tok}")
                if tokens[i][1] != ",":
                    values.append(tokens[i][1].strip('"'))
                i += 1
            if i >= len(tokens):
                raise GaneshaSyntaxError(line, f"missing ';' after {tok}")
            if tokens[i][1] == ";":
                i += 1
            stack[-1].params[tok.lower()] = values
        else:
            raise GaneshaSyntaxError(line, f"unexpected {tok!r}")
    if len(stack) > 1:
        raise GaneshaSyntaxError(stack[-1].line, f"block {stack[-1].name} is not closed")
    return top, includes


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
