"""The settings persist writes into their services' own files: the MTU into ifupdown's
interfaces (only a static stanza of that interface, any mtu it had replaced) and nfsd's threads
into nfs.conf's [nfsd] section; the other stanzas, sections and comments untouched."""

from __future__ import annotations

from nastune.tune import nfsconf
from nastune.tune.ifupdown import with_mtu

FILE = """# The NAS's network
auto lo
iface lo inet loopback

allow-hotplug eth0
iface eth0 inet static
\taddress 192.168.1.10/24
\tgateway 192.168.1.1
\t# a comment inside
iface eth0 inet6 auto
auto eth1
iface eth1 inet dhcp
"""


def test_the_mtu_goes_into_the_static_stanza_with_its_indentation():
    got = with_mtu(FILE, "eth0", 9000)
    assert got == FILE.replace("\tgateway 192.168.1.1\n", "\tgateway 192.168.1.1\n\tmtu 9000\n")


def test_an_mtu_already_there_is_replaced_not_repeated():
    once = with_mtu(FILE, "eth0", 9000)
    assert once is not None
    assert with_mtu(once, "eth0", 4000) == once.replace("mtu 9000", "mtu 4000")


def test_dhcp_an_unknown_interface_and_a_last_line_without_newline():
    assert with_mtu(FILE, "eth1", 9000) is None  # DHCP: the boot-time re-apply keeps it instead
    assert with_mtu(FILE, "eth7", 9000) is None
    assert with_mtu("iface eth0 inet static\n  address 10.0.0.2/24", "eth0", 9000) == (
        "iface eth0 inet static\n  address 10.0.0.2/24\n  mtu 9000\n"
    )


def test_nfsd_threads_go_into_nfs_conf_s_nfsd_section_once():
    text = "[general]\npipefs-directory=/run/rpc_pipefs\n\n[nfsd]\n# threads=8 is Debian's default\nthreads = 8\nport=2049\n"
    assert nfsconf.with_threads(text, 32) == text.replace("threads = 8\n", "").replace(
        "[nfsd]\n", "[nfsd]\nthreads=32\n"
    )
    assert nfsconf.with_threads("[general]\n", 16) == "[general]\n[nfsd]\nthreads=16\n"  # a section of its own
