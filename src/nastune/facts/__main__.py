"""Print this system's facts as JSON: what the lab runs inside its nas namespace, where
/proc/sys/net, /sys/class/net and the servers' processes are the lab's. It takes the reading's
options as `nastune inspect` does (--xfs-fragmentation[-exact], --address, --link-rate RATE)."""

import argparse

from nastune.facts import AREAS, Reading, collect
from nastune.root import Root
from nastune.units import rate_bits

parser = argparse.ArgumentParser(prog="python -m nastune.facts")
parser.add_argument("--xfs-fragmentation", dest="fragmentation", action="store_const", const="sample")
parser.add_argument("--xfs-fragmentation-exact", dest="fragmentation", action="store_const", const="exact")
parser.add_argument("--address")
parser.add_argument("--link-rate", type=rate_bits)
parser.add_argument("--area", action="append", choices=AREAS)
options = parser.parse_args()
reading = Reading(options.fragmentation, options.address, options.link_rate)
print(collect(Root("/"), options.area or AREAS, reading).to_json())
