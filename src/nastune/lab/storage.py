"""The lab's storage: XFS on a preallocated loop image (optionally with its log on a second
loop device), and an aged data set made of interleaved synchronous appends."""

from __future__ import annotations

import os
from pathlib import Path

from nastune.facts.mounts import parse_mounts
from nastune.lab.scenario import Storage
from nastune.lab.sh import HOST, LabError, run
from nastune.lab.state import Disk, Image, Loop, Mounted, State
from nastune.units import size_bytes


def _image(state: State, path: Path, size: int) -> str:
    """A preallocated image attached to a loop device with direct I/O (the host's page cache
    stays out of the measurements)."""
    state.add(Image(path=str(path)))
    with open(path, "wb") as f:
        os.posix_fallocate(f.fileno(), 0, size)
    state.add(Loop(image=str(path)))
    return run(["losetup", "--find", "--show", "--direct-io=on", str(path)]).stdout.strip()


def loops_of(image: str) -> list[str]:
    out = run(["losetup", "-j", image], check=False).stdout
    return [line.split(":", 1)[0] for line in out.splitlines() if line.strip()]


def mounted(path: str) -> bool:
    target = os.path.realpath(path)
    return any(m.mountpoint == target for m in parse_mounts(HOST.read("/proc/self/mounts")))


def build(state: State, directory: Path, storage: Storage) -> Disk:
    data = _image(state, directory / "data.img", size_bytes(storage.size))
    mkfs = ["mkfs.xfs", "-f", "-q"]
    options = list(storage.mount_options)
    log = None
    if storage.external_log:
        log = _image(state, directory / "log.img", size_bytes(storage.log_size) + (1 << 20))
        mkfs += ["-l", f"logdev={log},size={size_bytes(storage.log_size)}"]
        options.append(f"logdev={log}")
    run(mkfs + [data])
    mnt = directory / "mnt"
    mnt.mkdir(exist_ok=True)
    if storage.aging:
        _mount(state, data, mnt, ["allocsize=64k"] + ([f"logdev={log}"] if log else []))
        age(
            mnt / "share" / "aged",
            storage.aging.files,
            size_bytes(storage.aging.file_size),
            size_bytes(storage.aging.chunk),
        )
        unmount(str(mnt))
    _mount(state, data, mnt, options)
    share = mnt / "share"
    if storage.files:
        populate(share / storage.files.directory, storage.files.count, storage.files.mac)
    (share / "pub").mkdir(parents=True, exist_ok=True)
    share.chmod(0o755)  # vsftpd refuses a writable anonymous root
    (share / "pub").chmod(0o777)
    return Disk(device=data, log_device=log or "", mountpoint=str(mnt), share=str(share))


def _mount(state: State, device: str, mnt: Path, options: list[str]) -> None:
    state.add(Mounted(path=str(mnt)))
    run(["mount", "-t", "xfs"] + (["-o", ",".join(options)] if options else []) + [device, str(mnt)])


# The header of an AppleDouble file (magic 0x00051607, version 2), as macOS writes one
APPLEDOUBLE = bytes.fromhex("0005160700020000") + bytes(16) + bytes.fromhex("0000")


def age(directory: Path, files: int, file_size: int, chunk: int) -> None:
    """Interleaved O_SYNC appends to several files: each append gets its own extent, as on a
    NAS written by many slow clients for months (Borikar and Palani's 99% fragmented case)."""
    directory.mkdir(parents=True, exist_ok=True)
    block = os.urandom(chunk)
    fds = [
        os.open(directory / f"aged-{i}.bin", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_SYNC, 0o644)
        for i in range(files)
    ]
    try:
        for _ in range(file_size // chunk):
            for fd in fds:
                os.write(fd, block)
    finally:
        for fd in fds:
            os.close(fd)


def populate(directory: Path, count: int, mac: bool) -> None:
    """`count` empty files named as a scanner names them; with `mac`, what a Mac's Finder adds
    on a share without vfs_fruit: ._ files holding metadata, and the window's .DS_Store."""
    directory.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        (directory / f"scan-{n:06d}.pdf").touch()
        if mac and n % 10 == 0:
            (directory / f"._scan-{n:06d}.pdf").write_bytes(APPLEDOUBLE)
    if mac:
        (directory / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")


def aged_files(share: Path) -> list[tuple[str, int]]:
    """The aged data set as (path below the share, bytes), for the workload that reads it."""
    aged = share / "aged"
    return sorted((f"aged/{p.name}", p.stat().st_size) for p in aged.glob("*.bin")) if aged.is_dir() else []


def unmount(path: str) -> None:
    if mounted(path):
        proc = run(["umount", path], check=False)
        if proc.returncode != 0 and mounted(path):
            proc = run(["umount", "-l", path], check=False)  # a FUSE mount whose daemon is gone
        if mounted(path):
            raise LabError(f"cannot unmount {path}: {proc.stderr.strip()} (a process still uses it?)")


def detach(image: str) -> None:
    for device in loops_of(image):
        run(["losetup", "-d", device], check=False)
