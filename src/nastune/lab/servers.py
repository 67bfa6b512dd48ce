"""The lab's servers, each configured from the scenario with all its state under the lab's
directory: Samba (smbd), NFS-Ganesha with rpcbind in a private mount namespace, vsftpd, and
an iperf3 server. Each is checked by a real client before `up` returns."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from nastune.faults import checkpoint
from nastune.lab import network
from nastune.lab.procs import alive, spawn
from nastune.lab.scenario import Scenario
from nastune.lab.sh import LabError, in_ns, run
from nastune.lab.state import State

SHARE = "data"
SAMBA_DIRS = ("private", "lock", "state", "cache", "pid", "ncalrpc")


def samba_conf(directory: Path, share: str, scenario: Scenario) -> str:
    state = directory / "samba"
    base = {
        "workgroup": "LAB",
        "server role": "standalone server",
        "map to guest": "Bad User",
        "bind interfaces only": "yes",
        "interfaces": f"{network.NAS_IP}/24",
        "smb ports": "445",
        "disable netbios": "yes",
        "load printers": "no",
        "printing": "bsd",
        "printcap name": "/dev/null",
        "disable spoolss": "yes",
        "log file": str(state / "log.smbd"),
        "log level": "1",
        **{f"{d} dir" if d in ("private", "ncalrpc") else f"{d} directory": str(state / d) for d in SAMBA_DIRS},
        **scenario.samba,
    }
    share_params = {"path": share, "read only": "no", "guest ok": "yes", "force user": "root", **scenario.samba_share}
    lines = ["[global]"] + [f"   {k} = {v}" for k, v in base.items()]
    lines += ["", f"[{SHARE}]"] + [f"   {k} = {v}" for k, v in share_params.items()]
    return "\n".join(lines) + "\n"


def ganesha_conf(directory: Path, share: str, scenario: Scenario) -> str:
    export = {
        "Export_Id": 1,
        "Path": share,
        "Pseudo": f"/{SHARE}",
        "Access_Type": "RW",
        "Squash": "No_Root_Squash",
        "Protocols": "3, 4",
        "Transports": "TCP",
        "SecType": "sys",
        **scenario.ganesha_export,
    }
    body = "\n".join(f"    {k} = {v};" for k, v in export.items())
    return (
        f"NFS_CORE_PARAM {{\n    Protocols = 3, 4;\n    Mount_Path_Pseudo = true;\n"
        f"    Bind_addr = {network.NAS_IP};\n}}\n"
        f"NFSV4 {{\n    RecoveryBackend = fs;\n    RecoveryRoot = {directory / 'ganesha' / 'recovery'};\n"
        f"    Graceless = true;\n}}\n"
        f"EXPORT {{\n{body}\n    FSAL {{\n        Name = VFS;\n    }}\n}}\n"
    )


def vsftpd_conf(directory: Path, share: str) -> str:
    return "\n".join(
        [
            "listen=YES",
            "listen_ipv6=NO",
            f"listen_address={network.NAS_IP}",
            "background=NO",
            "anonymous_enable=YES",
            "local_enable=NO",
            "write_enable=YES",
            "anon_upload_enable=YES",
            "anon_mkdir_write_enable=YES",
            "anon_other_write_enable=YES",
            "anon_umask=022",
            f"anon_root={share}",
            "no_anon_password=YES",
            f"secure_chroot_dir={directory / 'ftp-empty'}",
            "pasv_enable=YES",
            "pasv_min_port=30000",
            "pasv_max_port=30100",
            "xferlog_enable=NO",
            "seccomp_sandbox=NO",
            "",
        ]
    )


def targets() -> dict[str, str]:
    return {
        "smb": f"smb://{network.NAS_IP}/{SHARE}",
        "nfs": f"nfs://{network.NAS_IP}/{SHARE}",
        "ftp": f"ftp://{network.NAS_IP}/pub",
        "iperf3": network.NAS_IP,
    }


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _wait(name: str, entry: dict, check: Callable[[], bool], timeout: float = 30) -> None:
    """Wait until a real client check passes; a server that died shows the tail of its log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(entry):
            raise LabError(
                f"{name} exited during start-up; its log ({entry['log']}) ends with:\n" + _tail(entry["log"])
            )
        if check():
            return
        time.sleep(0.3)
    raise LabError(
        f"{name} did not answer within {timeout:g} s; its log ({entry['log']}) ends with:\n" + _tail(entry["log"])
    )


def _tail(path: str, lines: int = 8) -> str:
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def client_ok(argv: list[str], ns: str | None = None) -> bool:
    return run(in_ns(ns or network.client_ns(1), argv), check=False, timeout=20).returncode == 0


CHECKS: dict[str, list[str]] = {
    "smbd": ["smbclient", "-N", f"//{network.NAS_IP}/{SHARE}", "-c", "ls"],
    "ganesha": ["nfs-ls", f"nfs://{network.NAS_IP}/{SHARE}"],
    "vsftpd": ["curl", "-s", "--max-time", "5", f"ftp://{network.NAS_IP}/pub/"],
}


def listening(port: int) -> bool:
    out = run(in_ns(network.NAS_NS, ["ss", "-Hltn", f"sport = :{port}"]), check=False).stdout
    return bool(out.strip())


def wait_ready(name: str, entry: dict) -> None:
    """Wait for a (re)started server to answer its client check."""
    if name in CHECKS:
        _wait(name, entry, lambda: client_ok(CHECKS[name]), 60)
    elif name == "iperf3":
        _wait(name, entry, lambda: listening(5201))


def start(state: State, directory: Path, share: str, scenario: Scenario, cgroups: list[str]) -> None:
    logs = directory / "logs"
    logs.mkdir(exist_ok=True)
    for d in SAMBA_DIRS:
        (directory / "samba" / d).mkdir(parents=True, exist_ok=True)
    smb = _write(directory / "smb.conf", samba_conf(directory, share, scenario))
    parsed = run(["testparm", "-s", str(smb)], check=False)
    if parsed.returncode != 0:
        raise LabError(f"{smb}: Samba rejects the generated configuration: {parsed.stderr.strip()[-300:]}")
    entry = spawn(
        state,
        "smbd",
        in_ns(network.NAS_NS, ["smbd", "--foreground", "--no-process-group", "-s", str(smb)]),
        logs / "smbd.out",
        cgroups,
    )
    _wait("smbd", entry, lambda: client_ok(CHECKS["smbd"]))
    checkpoint("lab:smbd")

    # rpcbind and ganesha share a private mount namespace whose /run is the lab's own tmpfs
    holder = spawn(
        state,
        "mount-namespace",
        in_ns(network.NAS_NS, ["unshare", "-m", "--propagation", "private", "--", "sleep", "infinity"]),
        logs / "holder.out",
    )
    time.sleep(0.2)
    enter = ["nsenter", "-t", str(holder["pid"]), "-m", "-n"]
    run(enter + ["mount", "-t", "tmpfs", "lab-run", "/run"])
    run(enter + ["mkdir", "-p", "/run/rpcbind"])
    rpcbind = spawn(state, "rpcbind", enter + ["rpcbind", "-f", "-w"], logs / "rpcbind.out", cgroups)
    _wait("rpcbind", rpcbind, lambda: run(enter + ["rpcinfo", "-p"], check=False).returncode == 0, 10)
    (directory / "ganesha" / "recovery").mkdir(parents=True, exist_ok=True)
    conf = _write(directory / "ganesha.conf", ganesha_conf(directory, share, scenario))
    ganesha = spawn(
        state,
        "ganesha",
        enter
        + [
            "ganesha.nfsd",
            "-F",
            "-f",
            str(conf),
            "-L",
            str(logs / "ganesha.log"),
            "-p",
            str(directory / "ganesha" / "ganesha.pid"),
            "-N",
            "NIV_EVENT",
        ],
        logs / "ganesha.out",
        cgroups,
    )
    _wait("ganesha", ganesha, lambda: client_ok(CHECKS["ganesha"]), 60)
    checkpoint("lab:ganesha")

    (directory / "ftp-empty").mkdir(exist_ok=True)
    ftp = _write(directory / "vsftpd.conf", vsftpd_conf(directory, share))
    entry = spawn(state, "vsftpd", in_ns(network.NAS_NS, ["vsftpd", str(ftp)]), logs / "vsftpd.out", cgroups)
    _wait("vsftpd", entry, lambda: client_ok(CHECKS["vsftpd"]))

    entry = spawn(state, "iperf3", in_ns(network.NAS_NS, ["iperf3", "-s", "-B", network.NAS_IP]), logs / "iperf3.out")
    _wait("iperf3", entry, lambda: listening(5201))
    mount_smbnetfs(state, directory)


SMBNETFS_CONF = """show_$_shares "false"
smb_query_browsers "false"
auth "guest" ""
host {ip} visible=true
"""


def smbfs_path(directory: Path) -> Path:
    """Where the client sees the share through smbnetfs (a path for fio)."""
    return directory / "smb-client" / network.NAS_IP / SHARE


def mount_smbnetfs(state: State, directory: Path) -> None:
    """The SMB share mounted with the FUSE client smbnetfs, in the host's mount namespace but
    the client's network namespace, with large FUSE requests (big_writes, 1 MiB reads/writes)."""
    home = directory / "smbnetfs-home"
    (home / ".smb").mkdir(parents=True, exist_ok=True)
    conf = home / ".smb" / "smbnetfs.conf"
    conf.write_text(SMBNETFS_CONF.format(ip=network.NAS_IP))
    conf.chmod(0o600)  # smbnetfs ignores auth lines in a config others can read
    (home / ".smb" / "smb.conf").touch()
    mnt = directory / "smb-client"
    mnt.mkdir(exist_ok=True)
    state.add("mount", path=str(mnt))
    options = f"config={conf},big_writes,max_read=1048576,max_write=1048576,max_rw_block_size=1048576"
    entry = spawn(
        state,
        "smbnetfs",
        ["nsenter", f"--net=/run/netns/{network.client_ns(1)}", "smbnetfs", str(mnt), "-f", "-o", options],
        directory / "logs" / "smbnetfs.out",
        env={"HOME": str(home)},
    )
    _wait("smbnetfs", entry, lambda: (smbfs_path(directory) / "pub").is_dir())
