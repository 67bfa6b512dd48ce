"""Measurement: targets, workloads driven through fio, smbclient, libnfs, curl and iperf3,
a system profile sampled during each run, and results with provenance."""
