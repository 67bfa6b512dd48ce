"""The published studies nastune's rules, workloads and statistics draw on, cited one way
wherever a user reads them (explain, diagnose, bench list, the report): the full citation in a
source field, the short name in a sentence."""

GAZETTE = (
    'Sagar Borikar and Rajesh Palani, "Linux based SMB NAS System Performance Optimization", '
    "Linux Gazette 185, April 2011, https://linuxgazette.net/185/borikar.html"
)
MINET_NFS = '"Tuning de performance NFS", WikiMiNET (MiNET\'s technical wiki), page sysadmin:tuning_nfs, 2014'
MINET_ZFS = '"benchmark : OpenIndiana versus FreeNas", WikiMiNET, page wiki:divers:coin_geek:benchmark_nfs, 2013'
QUMULO = (
    "Qumulo engineering blog: a ~30% write drop after the move to Linux 5.4 on dual-socket nodes, traced to "
    "NIC interrupts and memory on the other NUMA node, https://qumulo.com/blog/non-uniform-memory-access-numa/"
)
GOODPUT = (
    "TCP goodput over Ethernet: 1448 payload bytes per 1538 bytes on the wire at MTU 1500 (117.7 MB/s on "
    "gigabit), 8948 per 9038 at MTU 9000 (123.8 MB/s): IEEE 802.3 framing, RFC 7323 timestamps"
)
GANESHA_LISTING = (
    'nfs-ganesha issue #767, "Very slow \\"ls -l\\" performance while using NFS-Ganesha mount", 2021: '
    "`ls -l` of 50,000 files took 11.8 s through NFS-Ganesha, 0.6 s through the kernel's NFS server, "
    "https://github.com/nfs-ganesha/nfs-ganesha/issues/767"
)
