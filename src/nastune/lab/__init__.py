"""The lab's parts: commands in network namespaces, processes and cgroups, the state file, the
shaped network, storage on loop devices and the scenarios (TOML data). The protocols start their
lab servers with them; nastune.sites.lab puts them together into the lab."""
