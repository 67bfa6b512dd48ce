"""The kernel lab's guest: a Debian 12 machine under QEMU that runs the NAS on a real kernel
(kernel nfsd, Samba, vsftpd, XFS on a virtio disk, a multi-queue virtio NIC, two NUMA nodes)
and its clients in network namespaces that mount the shares with the kernel's NFS and SMB clients."""
