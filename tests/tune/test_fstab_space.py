"""An fstab entry whose mount point holds a space (fstab writes it \\040, as the kernel does in
/proc/mounts): read by the facts, and found and edited by the tuning engine, that entry alone."""

from __future__ import annotations

from nastune.conf.fstab import options as fstab_options
from nastune.tune.edits import fstab_set

FSTAB = (
    "UUID=1 / ext4 defaults 0 1\n"
    "/dev/md0 /srv/my\\040share xfs defaults,strictatime 0 2  # the shared array\n"
    "/dev/md1 /srv/my xfs defaults 0 2\n"
)


def test_an_entry_with_a_space_is_found_and_edited_alone():
    assert fstab_options(FSTAB, "/srv/my share") == ["defaults", "strictatime"]
    edited = fstab_set(FSTAB, "/srv/my share", "noatime", "")
    assert edited.splitlines()[1] == "/dev/md0 /srv/my\\040share xfs noatime 0 2  # the shared array"
    assert edited.splitlines()[0] == FSTAB.splitlines()[0] and edited.splitlines()[2] == FSTAB.splitlines()[2]
