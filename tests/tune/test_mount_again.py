"""Whether a client's mounted share must be mounted again for an fstab change: the kernel shows
some options otherwise than fstab spells them (actimeo=0 as its four cache times, as a Debian 6.1
client's /proc/mounts reads), and a removed option must still be seen as mounted."""

from __future__ import annotations

from nastune.tune.knobs.storage import _mounted_value

SHOWN = "rw,relatime,vers=3,rsize=8192,wsize=8192,namlen=255,acregmin=0,acregmax=0,acdirmin=0,acdirmax=0,hard,noac"


def test_actimeo_is_read_from_the_four_cache_times_the_kernel_shows():
    assert _mounted_value(SHOWN.split(","), "actimeo") == "0"
    assert _mounted_value(["rw", "acregmin=3"], "actimeo") is None  # the times differ: no single actimeo
    assert _mounted_value(["rw", "hard"], "actimeo") is None  # the defaults are not shown


def test_other_options_read_as_they_are_written():
    assert _mounted_value(SHOWN.split(","), "noac") == "noac"
    assert _mounted_value(SHOWN.split(","), "rsize") == "8192"
    assert _mounted_value(SHOWN.split(","), "lookupcache") is None
