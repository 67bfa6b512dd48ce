"""The lab as a whole: a real NAS on this machine (namespaces, shaped veth, XFS on loop, Samba,
NFS-Ganesha, vsftpd) with real clients reached over SSH, recorded in a state file so that `down`
removes exactly what `up` made; and the Site it offers. Its parts are in nastune.lab."""
