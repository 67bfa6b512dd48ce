#!/bin/sh
# The kernel lab guest's own start, run by nastune-lab.service at every boot. The lab's
# settings come read-only over 9p (tag "seed"); they are copied into place at the first boot
# only, so whatever nastune changes and persists afterwards is what a reboot finds, as on a
# NAS. Names: the NAS's data NIC is eth0 (kept in the root namespace), the client's is moved
# into the c1 namespace, the management NIC into "mgmt" (out of band, never on the data path).
set -eu
seed=/run/nastune-seed
state=/var/lib/nastune-lab
mkdir -p "$seed" "$state"

mount9p() { # tag, directory, options: a 9p device may not have its channel yet this early ("no
  # channels available for device seed"), and a boot that gave up hung until the lab power-cycled it
  for i in $(seq 1 100); do
    mountpoint -q "$2" && return
    mount -t 9p -o "trans=virtio,version=9p2000.L,ro$3" "$1" "$2" 2>/dev/null || sleep 0.1
  done
  mountpoint -q "$2" || mount -t 9p -o "trans=virtio,version=9p2000.L,ro$3" "$1" "$2" # its error, at last
}
mount9p seed "$seed" ""

nic() { # the interface with this MAC address (udev may still be loading virtio_net)
  for i in $(seq 1 300); do
    for d in /sys/class/net/*; do
      [ "$(cat "$d/address")" = "$1" ] && { basename "$d"; return; }
    done
    sleep 0.1
  done
  echo "no interface with address $1" >&2
  exit 1
}

if [ ! -e "$state/configured" ]; then
  cp -a "$seed/root/." /
  chmod 700 /root/.ssh
  user=$(cat "$seed/user")
  pw=$(cat "$seed/password")
  printf '%s\n%s\n' "$pw" "$pw" | pdbedit -a -u "$user" -t >/dev/null
  echo "$user:$pw" | chpasswd
  # the client's own /etc, a copy of the NAS's as the machine was installed, with its fstab
  mkdir -p "$state/c1"
  cp -a /etc "$state/c1/etc"
  cp -a "$seed/c1/." "$state/c1/etc/"
  # the data's storage as the scenario makes it (an XFS disk from fstab, or a ZFS pool and its
  # datasets), written by the lab beside the other settings
  sh -eu "$seed/storage.sh"
  # TuneD where the site runs it (its profile came with root/ above): reapply_sysctl as the site
  # has it, then on from now on, as `systemctl enable --now tuned` (started once this boot is on)
  if [ -s "$seed/tuned" ]; then
    reapply="reapply_sysctl = $(cat "$seed/tuned")"
    grep -q '^reapply_sysctl' /etc/tuned/tuned-main.conf &&
      sed -i "s/^reapply_sysctl.*/$reapply/" /etc/tuned/tuned-main.conf ||
      echo "$reapply" >> /etc/tuned/tuned-main.conf
    systemctl enable tuned.service
    systemctl start --no-block tuned.service
  fi
  touch "$state/configured"
fi

src=$(cat "$seed/src")
mkdir -p "$src"
# cached (cache=loose): every import is otherwise a round trip to QEMU per stat and read, which
# under emulation made each nastune command seconds slower; the checkout is read-only here and
# does not change while a lab is up
mount9p src "$src" ",cache=loose,msize=524288"
# nastune as if installed: the guest's python3 imports this checkout and its packages, so
# `python3 -m nastune` (and a unit nastune writes, which runs it so) works as on a NAS
mkdir -p /usr/local/lib/python3.11/dist-packages
printf '%s\n%s\n' "$src/src" "$(cat "$seed/packages")" > /usr/local/lib/python3.11/dist-packages/nastune-lab.pth

# the client c1: a network namespace with its NIC, and a mount namespace of its own whose
# /etc/fstab is the client's (nastune on the client edits it; its mounts are its own)
ip netns add c1 2>/dev/null || true
c=$(nic "$(cat "$seed/mac-c1")")
ip link set "$c" netns c1
ip -n c1 link set "$c" name eth0
ip -n c1 link set lo up
ip -n c1 addr replace "$(cat "$seed/c1-address")" dev eth0
ip -n c1 link set eth0 mtu "$(cat "$seed/c1-mtu")" up
if [ -s "$seed/c1-delay" ]; then  # the scenario's round trip: the client's packets wait this long
  ip netns exec c1 tc qdisc replace dev eth0 root netem delay "$(cat "$seed/c1-delay")"
fi

mkdir -p /run/nastune-lab
if [ ! -e /run/nastune-lab/c1.mnt ]; then
  mount --bind /run/nastune-lab /run/nastune-lab
  mount --make-private /run/nastune-lab
  touch /run/nastune-lab/c1.mnt
  unshare --mount=/run/nastune-lab/c1.mnt --propagation private true
  nsenter --mount=/run/nastune-lab/c1.mnt mount --bind "$state/c1/etc" /etc
  nsenter --mount=/run/nastune-lab/c1.mnt --net=/run/netns/c1 mount -t sysfs sysfs /sys
fi

# management: its own namespace, sshd there, through which the lab reaches the NAS and the
# client (started after the client's namespaces, which its sshd must see)
ip netns add mgmt 2>/dev/null || true
m=$(nic "$(cat "$seed/mac-mgmt")")
ip link set "$m" netns mgmt
ip -n mgmt link set "$m" name mgmt0
ip -n mgmt link set lo up
ip -n mgmt addr replace 10.0.2.15/24 dev mgmt0
ip -n mgmt link set mgmt0 up
mkdir -p /run/sshd
ip netns exec mgmt /usr/sbin/sshd -o PidFile=/run/sshd-mgmt.pid

# the NAS's own NIC is eth0 (ifupdown's configuration names it), once the others are gone
n=$(nic "$(cat "$seed/mac-nas")")
[ "$n" = eth0 ] || ip link set "$n" name eth0

# the scenario's NIC interrupts: every vector of the NAS's NIC on one NUMA node's CPUs
if [ -s "$seed/irq-node" ]; then
  cpus=$(cat "/sys/devices/system/node/node$(cat "$seed/irq-node")/cpulist")
  pci=$(readlink -f /sys/class/net/eth0/device/..)
  for irq in $(ls "$pci/msi_irqs"); do
    echo "$cpus" > "/proc/irq/$irq/smp_affinity_list" 2>/dev/null || true
  done
  echo "irqs of $(basename "$pci") on node $(cat "$seed/irq-node") (cpus $cpus)"
  # irqbalance, as most Debian servers run it, kept off the other nodes' CPUs (once: the file is
  # the operator's after that): it keeps this placement and, about every 10 s, moves back any IRQ
  # pinned elsewhere that it was not told to leave alone (--banirq)
  if ! grep -qs '^IRQBALANCE_BANNED_CPULIST=' /etc/default/irqbalance; then
    others=""
    for cpu in /sys/devices/system/cpu/cpu[0-9]*; do
      n=${cpu##*/cpu}
      [ -e "/sys/devices/system/node/node$(cat "$seed/irq-node")/cpu$n" ] || others="${others:+$others,}$n"
    done
    [ -z "$others" ] || echo "IRQBALANCE_BANNED_CPULIST=$others" >> /etc/default/irqbalance
  fi
fi
