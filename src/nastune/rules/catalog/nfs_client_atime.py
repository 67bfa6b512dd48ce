from nastune.rules.model import Change, Evidence, Rule, Severity


def check(rule, facts):
    for m in facts.mounts.mounts.value or []:
        if m.fstype in ("nfs", "nfs4") and "noatime" not in m.options:
            yield rule.finding(
                target=m.mountpoint,
                impact=3,
                message=f"NFS mount {m.mountpoint} keeps access-time updates on: reads of files and directories "
                "can cause attribute traffic to the server.",
                evidence=[Evidence(fact=f"{m.mountpoint} options", value=",".join(m.options), source="/proc/mounts")],
                changes=[
                    Change(
                        knob="nfs_client_mount",
                        target=m.mountpoint,
                        key="noatime",
                        current="relatime" if "relatime" in m.options else "atime",
                        new="noatime",
                    )
                ],
            )


RULE = Rule(
    id="nfs-client-atime",
    title="NFS client mount without noatime",
    area="nfs",
    severity=Severity.low,
    check=check,
    needs=("mounts",),
    gain="002 mounts its NFS shares noatime,nodiratime to avoid access-time traffic.",
    tradeoff="Access times seen through this client are not updated by its reads.",
    source="002 (NFS client mount options)",
)
