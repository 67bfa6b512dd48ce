"""The guest's disk image, built from Debian's packages only and cached: mmdebstrap makes a
Debian 12 root file system from the archive apt is configured with (the kernel, nfs-kernel-server,
Samba, vsftpd, OpenSSH, the kernel's NFS and SMB clients' tools), the lab's start scripts go in,
and mkfs.ext4 turns the directory into a disk image without mounting anything. A second lab
reuses the image whose recipe is the same; each lab boots an overlay of it, never the image.

The ZFS image (`--scenario zfs`) adds OpenZFS from Debian's archive, as a Debian, Proxmox or
OpenMediaVault NAS installs it: zfsutils-linux and zfs-dkms from bookworm-backports (contrib;
2.3, the release TrueNAS SCALE 25.04 ships), whose DKMS build compiles zfs.ko inside the image
for the image's own kernel, with the headers of that kernel. It is an image of its own (minutes
of compiling, once per machine), beside the plain one."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from nastune.lab.sh import LabError, need, run

CACHE = Path(os.environ.get("NASTUNE_GUEST_CACHE", "/var/lib/nastune/guest"))
RELEASE = "bookworm"
PACKAGES = (
    *("systemd-sysv", "udev", "kmod", "iproute2", "ifupdown", "procps", "util-linux", "ethtool", "numactl"),
    *("linux-image-amd64", "nfs-kernel-server", "smbclient", "openssh-server", "xfsprogs"),
    *("nfs-common", "cifs-utils", "libnfs-utils", "python3", "fio", "iperf3", "curl", "iputils-ping"),
    "irqbalance",  # as most Debian servers run it: what an IRQ nastune pins must be banned from
    "tuned",  # as RHEL-like servers run it: off until a scenario has a TuneD profile (DISABLED)
)
# OpenZFS where Debian has it: the contrib component of bookworm-backports, its kernel module built
# by DKMS for the image's kernel (whose headers come from the release itself, not backports)
BACKPORTS = f"{RELEASE}-backports"
ZFS_BUILD = ("linux-headers-amd64", "dkms", "build-essential")
ZFS_PACKAGES = ("zfsutils-linux", "zfs-dkms")
ZFS_HOOK = (
    f'echo "deb http://deb.debian.org/debian {BACKPORTS} main contrib" > "$1/etc/apt/sources.list.d/backports.list" && '
    'chroot "$1" apt-get update -qq && '
    f'DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get install -y -qq -t {BACKPORTS} {" ".join(ZFS_PACKAGES)} && '
    'ls "$1"/lib/modules/*/updates/dkms/zfs.ko*'
)
# dkms.service would check at every boot that the module is built: it is, for the one kernel there is
ZFS_MASKED = ("dkms.service",)
# Installed, started only where a scenario says (boot.sh enables it then)
DISABLED = ("tuned.service",)
# Units a NAS of this kind does not need and that only slow an emulated boot
MASKED = (
    *("nmbd.service", "samba-ad-dc.service", "e2scrub_reap.service", "e2scrub_all.timer"),
    *("apt-daily.timer", "apt-daily-upgrade.timer", "fstrim.timer", "man-db.timer", "dpkg-db-backup.timer"),
    *("getty@tty1.service", "systemd-timesyncd.service"),
)
UNITS = {
    "nastune-lab.service": """[Unit]
Description=nastune kernel lab: the lab's settings, the management and client namespaces
DefaultDependencies=no
After=local-fs.target systemd-udevd.service
Before=networking.service nfs-server.service smbd.service vsftpd.service ssh.service sysinit.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/nastune-lab-boot
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=sysinit.target
""",
    "nastune-lab-clients.service": """[Unit]
Description=nastune kernel lab: the client mounts its shares
After=nastune-lab.service nfs-server.service smbd.service networking.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/nastune-lab-clients
StandardError=journal+console

[Install]
WantedBy=multi-user.target
""",
}
HERE = Path(__file__).parent
SCRIPTS = {"nastune-lab-boot": HERE / "boot.sh", "nastune-lab-clients": HERE / "clients.sh"}
USER = "nastune"  # the lab's login (sites/lab/credentials.py): its shares' owner
UID = 1000  # its user id, which the NFS export maps every client user to (as a NAS's "map all" does)


@dataclass(frozen=True)
class Image:
    """A built image: the root disk, the kernel and its initramfs."""

    dir: Path

    @property
    def disk(self) -> Path:
        return self.dir / "root.img"

    @property
    def kernel(self) -> Path:
        return self.dir / "vmlinuz"

    @property
    def initrd(self) -> Path:
        return self.dir / "initrd.img"

    @property
    def host_key(self) -> Path:
        """The guest's SSH host key (public), for the lab's known_hosts."""
        return self.dir / "host_ed25519.pub"

    @property
    def ready(self) -> bool:
        return all(p.is_file() for p in (self.disk, self.kernel, self.initrd, self.host_key))


def recipe(servers: tuple[str, ...], zfs: bool = False) -> str:
    """What an image is made of: a changed package list, user or start script makes a new image;
    a ZFS image's name says so, so that the plain and the ZFS image are cached side by side."""
    parts = [
        RELEASE,
        *PACKAGES,
        *servers,
        *MASKED,
        *DISABLED,
        *UNITS.values(),
        *(p.read_text() for p in SCRIPTS.values()),
    ]
    parts += [USER, str(UID)]
    if zfs:
        parts += [*ZFS_BUILD, *ZFS_PACKAGES, ZFS_HOOK, *ZFS_MASKED]
    return ("zfs-" if zfs else "") + hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def cached(servers: tuple[str, ...], cache: Path = CACHE, zfs: bool = False) -> Image:
    return Image(cache / recipe(servers, zfs))


def build(
    servers: tuple[str, ...], cache: Path = CACHE, log: Callable[[str], None] = print, zfs: bool = False
) -> Image:
    """The cached image for today's recipe with the file servers' Debian packages `servers` (and
    OpenZFS with `zfs`), built first when there is none; the steps and the image's size are logged."""
    image = cached(servers, cache, zfs)
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / f"{image.dir.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another lab building the same image: wait, then reuse it
        if image.ready:
            log(f"guest image: {image.dir} (cached, {_size(image.disk)})")
            return image
        return _make(image, servers, cache, log, zfs)


def _mmdebstrap(servers: tuple[str, ...], root: Path, zfs: bool, log: Callable[[str], None]) -> None:
    """The root file system; with `zfs`, OpenZFS installed and its module built inside it."""
    packages = ",".join(sorted({*PACKAGES, *servers, *(ZFS_BUILD if zfs else ())}))
    argv = ["mmdebstrap", "--variant=minbase", "--mode=root", f"--include={packages}"]
    if zfs:
        argv += ["--components=main,contrib", f"--customize-hook={ZFS_HOOK}"]
        log(f"guest image: OpenZFS from {BACKPORTS}, its module compiled by DKMS for the image's kernel (minutes)")
    log(f"guest image: mmdebstrap {RELEASE} with {packages.count(',') + 1} packages and their dependencies")
    try:
        run([*argv, RELEASE, str(root)], timeout=3600)
    except LabError as e:
        if zfs:
            raise LabError(f"OpenZFS could not be installed in the guest image ({BACKPORTS}, contrib): {e}") from e
        raise


def _make(image: Image, servers: tuple[str, ...], cache: Path, log: Callable[[str], None], zfs: bool) -> Image:
    need("mmdebstrap", "mkfs.ext4")
    work = cache / f"{image.dir.name}.building"
    _discard(work)
    work.mkdir(parents=True)
    root = work / "rootfs"
    began = time.monotonic()
    _mmdebstrap(servers, root, zfs, log)
    _configure(root, ZFS_MASKED if zfs else ())
    log(f"guest image: root file system {_size(root)} after {time.monotonic() - began:.0f} s; making the disk")
    _boot_files(root, work)
    run(["mkfs.ext4", "-q", "-F", "-L", "nastune-root", "-d", str(root), str(work / "root.img"), "4G"], timeout=600)
    shutil.rmtree(root)
    work.rename(image.dir)
    for old in cache.iterdir():  # earlier recipes of the same kind of image: no lab boots them any more
        if old.is_dir() and old != image.dir and not old.name.endswith(".building") and _kind(old) == _kind(image.dir):
            _discard(old)
            log(f"guest image: removed {old}, an image of an earlier recipe")
    log(f"guest image: {image.dir} built in {time.monotonic() - began:.0f} s ({_size(image.disk)} on disk)")
    return image


def _kind(path: Path) -> str:
    """Which image a cache directory holds: plain or zfs."""
    return "zfs" if path.name.startswith("zfs-") else "plain"


def _discard(path: Path) -> None:
    """Remove a directory of the cache, first unmounting what a killed mmdebstrap left mounted
    in it (its chroot's /proc, /sys, /dev), so that removing it never reaches the host's."""
    mounts = Path("/proc/self/mounts").read_text().splitlines()
    inside = [m.split()[1] for m in mounts if m.split()[1].startswith(f"{path}/")]
    for mountpoint in sorted(inside, reverse=True):
        run(["umount", "-l", mountpoint], check=False)
    if path.exists():
        shutil.rmtree(path)


def _configure(root: Path, masked: tuple[str, ...] = ()) -> None:
    """The lab's start scripts and units, the lab's user, and the units it does not need."""
    sbin = root / "usr/local/sbin"
    for name, source in SCRIPTS.items():
        shutil.copyfile(source, sbin / name)
        (sbin / name).chmod(0o755)
    for name, text in UNITS.items():
        (root / "etc/systemd/system" / name).write_text(text)
    (root / "etc/fstab").write_text("LABEL=nastune-root / ext4 defaults 0 1\n")
    (root / "etc/hostname").write_text("nas\n")
    for mountpoint in ("srv/data", "mnt/nfs", "mnt/smb"):
        (root / mountpoint).mkdir(parents=True, exist_ok=True)
    run(["chroot", str(root), "useradd", "--create-home", "--shell", "/bin/bash", "--uid", str(UID), USER])
    run(["systemctl", f"--root={root}", "enable", *UNITS])
    run(["systemctl", f"--root={root}", "mask", *MASKED, *masked])
    run(["systemctl", f"--root={root}", "disable", *DISABLED])


def _boot_files(root: Path, work: Path) -> None:
    """The kernel and the initramfs Debian made for it, beside the disk (QEMU boots them)."""
    kernels = sorted((root / "boot").glob("vmlinuz-*"))
    initrds = sorted((root / "boot").glob("initrd.img-*"))
    if not kernels or not initrds:
        raise LabError(f"{root}/boot: the kernel package left no vmlinuz or initrd.img")
    shutil.copyfile(kernels[-1], work / "vmlinuz")
    shutil.copyfile(initrds[-1], work / "initrd.img")
    shutil.copyfile(root / "etc/ssh/ssh_host_ed25519_key.pub", work / "host_ed25519.pub")


def _size(path: Path) -> str:
    """Bytes in use (a sparse disk counts what it holds)."""
    if path.is_file():
        used = path.stat().st_blocks * 512
    else:
        used = sum(p.lstat().st_blocks * 512 for p in path.rglob("*"))
    return f"{used / (1 << 20):.0f} MiB"
