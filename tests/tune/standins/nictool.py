#!/usr/bin/env python3
"""A stand-in for `ethtool` (-c/-C, -g/-G) and `zfs` (get/set/inherit) on hardware this machine lacks
(veth has no coalescing or rings; there is no ZFS): it keeps the device's settings in the JSON
file $NASTUNE_STANDIN and prints what the real tools print (formats captured from ethtool 6.1
and OpenZFS 2.1), refusing what they refuse: an unknown parameter, a ring above its maximum."""

import json
import os
import sys
from typing import NoReturn

STATE = os.environ["NASTUNE_STANDIN"]
RING_MAX = 4096


def load() -> dict:
    with open(STATE) as f:
        return json.load(f)


def save(state: dict) -> None:
    with open(STATE, "w") as f:
        json.dump(state, f)


def refuse(message: str, code: int = 1) -> NoReturn:
    print(message, file=sys.stderr)
    sys.exit(code)


def ethtool(args: list[str], state: dict) -> None:
    flag, dev, *pairs = args
    nic = state["nics"].get(dev)
    if nic is None:
        refuse(f"netlink error: no device matches name ({dev})")
    if flag == "-c":
        c = nic["coalesce"]
        print(f"Coalesce parameters for {dev}:")
        print(f"Adaptive RX: {c['adaptive-rx']}  TX: {c['adaptive-tx']}")
        for key in ("rx-usecs", "rx-frames", "tx-usecs", "tx-frames"):
            print(f"{key}: {c[key]}")
    elif flag == "-g":
        r = nic["ring"]
        print(f"Ring parameters for {dev}:\nPre-set maximums:\nRX:\t\t{RING_MAX}\nTX:\t\t{RING_MAX}")
        print(f"Current hardware settings:\nRX:\t\t{r['rx']}\nTX:\t\t{r['tx']}")
    elif flag in ("-C", "-G"):
        section = nic["coalesce" if flag == "-C" else "ring"]
        for key, value in zip(pairs[::2], pairs[1::2]):
            if key not in section:
                refuse(f'ethtool: bad command line argument(s)\nFor more information run ethtool -h "{key}"')
            if flag == "-G" and int(value) > RING_MAX:
                refuse("netlink error: Invalid argument")
            section[key] = value if key.startswith("adaptive") else int(value)
        save(state)
    else:
        refuse(f"stand-in: {flag} is not implemented", 2)


def zfs(args: list[str], state: dict) -> None:
    """get (value, or value and source), set (which makes it local) and inherit (which brings back
    the value it had before it was set, and its source): a dataset's properties start inherited."""
    sources = state.get("sources", {})
    if args[:3] == ["get", "-H", "-o"] and args[3] in ("value", "value,source"):
        prop, dataset = args[4:6]
        props = state["datasets"].get(dataset)
        if props is None:
            refuse(f"cannot open '{dataset}': dataset does not exist")
        source = sources.get(dataset, {}).get(prop, ["default"])[0]
        print(props[prop] if args[3] == "value" else f"{props[prop]}\t{source}")
    elif args[0] == "set":
        (prop, value), dataset = args[1].split("=", 1), args[2]
        sources = state.setdefault("sources", {})
        was = sources.setdefault(dataset, {}).get(prop, ["default", state["datasets"][dataset][prop]])
        sources[dataset][prop] = ["local", *was[1:]] if was[0] == "local" else ["local", was[1]]
        state["datasets"][dataset][prop] = value
        save(state)
    elif args[0] == "inherit":
        prop, dataset = args[1:3]
        was = sources.get(dataset, {}).pop(prop, None)
        if was is not None and len(was) > 1:
            state["datasets"][dataset][prop] = was[1]
        for name in [d for d, props in sources.items() if not props]:
            del sources[name]
        if not sources:
            del state["sources"]
        save(state)
    else:
        refuse(f"stand-in: zfs {args[0]} is not implemented", 2)


if __name__ == "__main__":
    state = load()
    (ethtool if os.path.basename(sys.argv[0]) == "ethtool" else zfs)(sys.argv[1:], state)
