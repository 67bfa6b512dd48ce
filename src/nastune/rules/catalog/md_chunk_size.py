from nastune.rules.model import Evidence, Rule, Severity

MIRROR_CHUNK_KB = 64


def check(rule, facts):
    for a in facts.md.arrays:
        chunk = a.chunk_kb or ((a.sysfs_int("chunk_size") or 0) // 1024)
        if a.level == "raid10" and chunk and chunk != MIRROR_CHUNK_KB:
            yield rule.finding(
                target=a.name,
                impact=3,
                message=f"{a.name} is a RAID10 with {chunk}K chunks; 001 recommends 64K for mirrored layouts.",
                evidence=[Evidence(fact=f"{a.name} chunk (KiB)", value=chunk, source="/proc/mdstat")],
                advice="The chunk size is set at creation: change it with `mdadm --grow --chunk=64` (a long "
                "reshape) or when the array is next rebuilt; measure first with the bench.",
            )
        elif a.level in ("raid5", "raid6") and chunk and chunk < 64:
            yield rule.finding(
                target=a.name,
                impact=3,
                message=f"{a.name} is a {a.level} with {chunk}K chunks: large files are split into many small "
                "per-disk requests.",
                evidence=[Evidence(fact=f"{a.name} chunk (KiB)", value=chunk, source="/proc/mdstat")],
                advice="Reshape to a larger chunk (001's results used 1024K) with `mdadm --grow --chunk=`, "
                "or choose it at the next rebuild.",
            )


RULE = Rule(
    id="md-chunk-size",
    title="RAID chunk size unsuited to the level",
    area="storage",
    severity=Severity.low,
    check=check,
    needs=("md",),
    gain="Requests map onto whole chunks of each disk; 001 advises 64K for mirrors and used 1024K chunks "
    "for its RAID5 results.",
    tradeoff="Changing the chunk size means a reshape (hours to days, with reduced performance) or a rebuild.",
    source="001 2.1.1 and 2.7 (chunk size)",
)
