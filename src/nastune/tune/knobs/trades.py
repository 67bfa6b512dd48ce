"""Which guarantee a change trades, judged from the value it writes and the value it replaces,
never from what a plan says of itself: a plan is input, and an edited or foreign one may claim
anything. Each knob that can trade a guarantee asks these tables."""

from __future__ import annotations

from nastune.conf import samba as samba_conf

DURABILITY, SECURITY, COMPATIBILITY = "durability", "security", "compatibility"

# Samba's enum of signing and encryption values, weakest first (source3/param loadparm's
# enum_smb_signing_vals and enum_smb_encryption_vals): off, offered, desired, required.
_LEVELS = {
    **dict.fromkeys(("no", "false", "0", "off", "disabled"), 0),
    **dict.fromkeys(("yes", "true", "1", "on", "enabled", "auto", "if_required", "default"), 1),
    "desired": 2,
    **dict.fromkeys(("required", "mandatory", "force", "forced", "enforced"), 3),
}
_LEVEL_KEYS = frozenset(
    (
        "server signing",
        "client signing",
        "smb encrypt",
        "server smb encrypt",
        "client smb encrypt",
        "client ipc signing",
    )
)
# The SMB3 algorithms by strength: HMAC-SHA256 is SMB 2's signing, the AES-256 ciphers the
# strongest of SMB 3.1.1 (MS-SMB2 2.2.3.1.2 and 2.2.3.1.7).
_ALGORITHMS = {"hmac-sha256": 1, "aes-128-cmac": 2, "aes-128-gmac": 2}
_ALGORITHMS |= {"aes-128-ccm": 1, "aes-128-gcm": 1, "aes-256-ccm": 2, "aes-256-gcm": 2}
_ALGORITHM_KEYS = frozenset(
    (
        "server smb3 signing algorithms",
        "server smb3 encryption algorithms",
        "client smb3 signing algorithms",
        "client smb3 encryption algorithms",
    )
)
# the dialect floor: lowering it lets SMB1's unsigned, unencrypted sessions in
_PROTOCOLS = ["core", "coreplus", "lanman1", "lanman2", "nt1", "smb2", "smb2_02", "smb2_10", "smb3", "smb3_00"]
_PROTOCOLS += ["smb3_02", "smb3_11"]
_PROTOCOL_KEYS = frozenset(("server min protocol", "min protocol", "client min protocol"))
# Samba parameters whose every change moves a crash-safety trade, in either direction
_SAMBA_DURABLE = frozenset(("strict sync", "sync always"))


def samba(section: str, key: str, current: object, new: object) -> list[str]:
    """The guarantees a Samba parameter's change trades. An unset share parameter inherits
    [global], which may require anything: it is judged against the strongest value."""
    key = samba_conf.normalise(key)
    if key in _SAMBA_DURABLE:
        return [DURABILITY] if _text(current, key) != _text(new, key) else []
    if key == "case sensitive":
        caseless = current is None or _text(current, key) in samba_conf.CASELESS  # unset: auto, or [global]'s
        return [COMPATIBILITY] if caseless and _text(new, key) not in samba_conf.CASELESS else []
    shared = section.lower() != "global"
    before = _text(current, key) if current is not None or not shared else None
    if key in _LEVEL_KEYS:
        was = 3 if before is None else _LEVELS.get(before, 3)
        return [SECURITY] if _LEVELS.get(_text(new, key), -1) < was else []
    if key in _ALGORITHM_KEYS:
        return [SECURITY] if _weaker(_ranks(before or _text(None, key)), _ranks(_text(new, key))) else []
    if key in _PROTOCOL_KEYS:
        return [SECURITY] if _dialect(_text(new, key)) < _dialect(before or _text(None, key)) else []
    return []


def _text(value: object, key: str) -> str:
    """A value as Samba compares it; None is the built-in default."""
    if value is None:
        value = samba_conf.defaults().get(key, "")
    return " ".join(str(value).lower().split())


def _ranks(listed: str) -> list[int]:
    """Each algorithm's strength; one Samba does not know counts as the weakest."""
    return [_ALGORITHMS.get(a.strip(), 0) for a in listed.replace(",", " ").split()]


def _weaker(before: list[int], after: list[int]) -> bool:
    """A weaker algorithm became acceptable, or the strongest one was dropped."""
    if not after:
        return True
    return min(after) < min(before, default=0) or max(after) < max(before, default=0)


def _dialect(name: str) -> int:
    return _PROTOCOLS.index(name) if name in _PROTOCOLS else -1


# Export options and mount options whose change moves a crash-safety trade either way
SYNC_MODES = frozenset(("sync", "async"))
# noac: an NFS client's writes synchronous (nfs(5)), so removing it is sync to async
DURABLE_MOUNT_OPTIONS = frozenset(
    ("sync", "async", "nobarrier", "barrier", "data", "commit", "journal_async_commit", "noac")
)
# Writeback limits at or below the kernel's defaults hold at most this much unwritten data;
# raising one past both the default and its current value is a durability trade.
DIRTY_DEFAULTS = {
    "vm.dirty_ratio": 20,
    "vm.dirty_background_ratio": 10,
    "vm.dirty_bytes": 0,
    "vm.dirty_background_bytes": 0,
    "vm.dirty_expire_centisecs": 3000,
    "vm.dirty_writeback_centisecs": 500,
}


def sysctl(key: str, current: object, new: object) -> list[str]:
    """A writeback limit raised past the kernel's default and its current value; periodic
    writeback switched off (dirty_writeback_centisecs = 0)."""
    if key not in DIRTY_DEFAULTS:
        return []
    after, before = _number(new), _number(current)
    if after is None:
        return [DURABILITY]
    if key == "vm.dirty_writeback_centisecs" and after == 0 and before != 0:
        return [DURABILITY]
    bound = max(DIRTY_DEFAULTS[key], before if before is not None else DIRTY_DEFAULTS[key])
    return [DURABILITY] if after > bound else []


def _number(value: object) -> int | None:
    text = str(value).strip() if value is not None else ""
    return int(text) if text.isdigit() else None


def changed(current: object, new: object) -> list[str]:
    """Durability, for a setting every change of which moves the trade (sync modes)."""
    return [DURABILITY] if _plain(current) != _plain(new) else []


def _plain(value: object) -> str | None:
    return None if value is None else " ".join(str(value).lower().split())
