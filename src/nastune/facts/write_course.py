"""A measured fact: how the NAS took a sustained write (a `sustained-write` run of bench or
optimize, given to diagnose with --profile): the burst its write-back cache absorbed, the rate
its disks sustained after it and the stalls between. The dirty-data rule sizes the write-back
limit from the sustained rate: nothing read from /proc or /sys tells how fast the disks write."""

from __future__ import annotations

from pydantic import BaseModel


class WriteCourse(BaseModel):
    where: str  # the workload and target it was measured on
    sustained_mbs: float  # MB/s after the burst: what the disks take
    burst_mb: float  # MB written before the rate fell for good
    burst_mbs: float
    worst_mbs: float  # the slowest 5 s after the burst
    stalls: int  # seconds at under a tenth of the sustained rate, in the worst repeat

    def said(self) -> str:
        """The course as the dirty-data findings quote it, inside their parentheses."""
        stalls = f", {self.stalls} s of stalls" if self.stalls else ""
        return (
            f"{self.where}: a burst of {self.burst_mb:.0f} MB at {self.burst_mbs:.0f} MB/s, then the slowest 5 s "
            f"at {self.worst_mbs:.1f} MB/s{stalls}"
        )
