#!/bin/sh
# The kernel lab's client c1 mounts its /etc/fstab's shares once the NAS serves them, as a
# client does at boot (run by nastune-lab-clients.service after the servers start).
set -u
for i in $(seq 1 60); do
  nsenter --mount=/run/nastune-lab/c1.mnt --net=/run/netns/c1 mount -a -t nfs,nfs4,cifs && exit 0
  sleep 2
done
echo "c1 could not mount its shares" >&2
exit 1
