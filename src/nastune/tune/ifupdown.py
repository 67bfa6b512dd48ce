"""ifupdown's /etc/network/interfaces, where a Debian NAS keeps its addresses and its MTU: an MTU
persisted there is the NAS's own configuration, as the NFS article keeps it (interfaces(5))."""

from __future__ import annotations

PATH = "/etc/network/interfaces"
STANZAS = ("iface", "auto", "mapping", "source", "source-directory", "rename")


def _opens_stanza(line: str) -> bool:
    words = line.split()
    return bool(words) and not line[0].isspace() and (words[0] in STANZAS or words[0].startswith("allow-"))


def with_mtu(text: str, device: str, mtu: int) -> str | None:
    """`text` with `mtu` as the only mtu option of `device`'s static IPv4 stanza; None when it has
    none (DHCP, or configured elsewhere), where the MTU is re-applied at boot instead."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.split()[:4] == ["iface", device, "inet", "static"]), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if _opens_stanza(lines[i])), len(lines))
    body = [line for line in lines[start + 1 : end] if line.split()[:1] != ["mtu"]]
    options = [i for i, line in enumerate(body) if line.strip() and not line.lstrip().startswith("#")]
    last = options[-1] if options else -1
    if last >= 0 and not body[last].endswith("\n"):
        body[last] += "\n"
    indent = body[last][: len(body[last]) - len(body[last].lstrip())] if last >= 0 else "    "
    body.insert(last + 1, f"{indent}mtu {mtu}\n")
    return "".join(lines[: start + 1] + body + lines[end:])
