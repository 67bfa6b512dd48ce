"""nfs-utils' /etc/nfs.conf, where Debian's nfs-kernel-server reads nfsd's thread count each time
it starts: threads persisted there survive a reboot and a restart of nfs-server alike (nfs.conf(5))."""

from __future__ import annotations

PATH = "/etc/nfs.conf"


def _key(line: str) -> str:
    return line.split("#", 1)[0].partition("=")[0].strip().lower()


def with_threads(text: str, threads: int) -> str:
    """`text` with `threads` as the only threads of its [nfsd] section, added at the end when
    it has none; comments and the other sections untouched."""
    lines = text.splitlines(keepends=True)
    heads = [i for i, line in enumerate(lines) if line.split("#", 1)[0].strip().startswith("[")]
    start = next((i for i in heads if lines[i].split("#", 1)[0].strip()[1:-1].strip().lower() == "nfsd"), None)
    if start is None:
        return text + ("\n" if text and not text.endswith("\n") else "") + f"[nfsd]\nthreads={threads}\n"
    end = next((i for i in heads if i > start), len(lines))
    body = [line for line in lines[start + 1 : end] if _key(line) != "threads"]
    return "".join(lines[: start + 1] + [f"threads={threads}\n"] + body + lines[end:])
