"""Print this system's facts as JSON: what the lab runs inside its nas namespace, where
/proc/sys/net, /sys/class/net and the servers' processes are the lab's."""

import sys

from nastune.facts import collect
from nastune.root import Root

print(collect(Root("/"), xfs_fragmentation="--xfs-fragmentation" in sys.argv[1:]).to_json())
