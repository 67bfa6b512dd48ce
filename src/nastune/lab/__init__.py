"""The lab: a real NAS on this machine (namespaces, shaped veth, XFS on loop, Samba,
NFS-Ganesha, vsftpd) with real clients, recorded in a state file so that `down`
removes exactly what `up` made, even after `up` was killed."""
