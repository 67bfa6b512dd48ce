"""The lab commands: up, down, reset, status, exec."""

from __future__ import annotations

from typing import Annotated

import typer

from nastune.cli import options as opt
from nastune.cli.common import console, lab_action, lab_app, say


@lab_app.command("up", short_help="Build the lab (idempotent)")
def lab_up(
    scenario: opt.Scenario = "soho",
    rate: Annotated[str | None, typer.Option(help="Link rate, both directions (e.g. 1gbit, 100mbit).")] = None,
    mtu: Annotated[int | None, typer.Option(help="MTU of every lab interface.")] = None,
    clients: Annotated[int | None, typer.Option(help="Number of client hosts (1-8).")] = None,
    kernel: Annotated[bool, typer.Option("--kernel", help=KERNEL_HELP)] = False,
) -> None:
    """Build the lab (idempotent: an identical lab that is up is left alone). With --kernel, the
    NAS runs on a real Debian kernel in a QEMU guest (scenario `kernel` unless one is named)."""
    from nastune.lab import scenario as scenarios
    from nastune.sites.lab.lab import Lab

    if kernel:
        return lab_up_kernel("kernel" if scenario == "soho" else scenario, rate, mtu)

    def action() -> None:
        network = {k: v for k, v in (("rate", rate), ("mtu", mtu)) if v is not None}
        final = scenarios.load(scenario, network, **({"clients": clients} if clients is not None else {}))
        built = Lab().up(final, log=say("lab"))
        console().print(("lab is up" if built else "lab was already up") + f" (scenario {final.name})", highlight=False)
        for name, url in Lab().state.record.targets.items():
            console().print(f"  {name:7} {url}", highlight=False)

    lab_action(action)


def lab_up_kernel(scenario: str, rate: str | None, mtu: int | None) -> None:
    from nastune.lab import scenario as scenarios
    from nastune.sites.lab.kernel import KernelLab

    def action() -> None:
        network = {k: v for k, v in (("rate", rate), ("mtu", mtu)) if v is not None}
        final = scenarios.load(scenario, network)
        built = KernelLab().up(final, log=say("lab"))
        state = "kernel lab is up" if built else "kernel lab was already up"
        console().print(f"{state} (scenario {final.name}); hosts: nastune lab inventory --kernel", highlight=False)

    lab_action(action)


def shown(message: str) -> None:
    console().print(message, highlight=False)


KERNEL_HELP = "Run the NAS on a real Debian kernel in a QEMU guest (kernel nfsd, the kernel's NFS and SMB clients)."


@lab_app.command("down", short_help="Remove everything the lab created")
def lab_down() -> None:
    """Remove everything the labs created (namespaces, mounts, loop devices, cgroups, processes,
    the kernel lab's guest, taps and bridge, files); the kernel lab's cached image stays."""
    from nastune.sites.lab.kernel import KernelLab
    from nastune.sites.lab.lab import Lab

    def action() -> None:  # the kernel lab first: its directory may lie inside the other's
        KernelLab().down(log=shown)
        Lab().down(log=shown)

    lab_action(action)


@lab_app.command("reset", short_help="Rebuild the lab in its scenario's state")
def lab_reset() -> None:
    """Rebuild the lab in its scenario's state (undoes any tuning applied to it)."""
    from nastune.sites.lab.lab import Lab

    lab_action(lambda: Lab().reset(log=say("lab")))


@lab_app.command("status", short_help="Each part of the lab, up or down")
def lab_status(
    json: opt.Json = False, kernel: Annotated[bool, typer.Option("--kernel", help="The kernel lab's parts.")] = False
) -> None:
    """Each part of the lab, up or down, with the check that proves it (the kernel lab's when it is
    the one lab up); exit 1 if any is down."""
    from nastune.report import outcomes
    from nastune.sites.lab.kernel import KernelLab
    from nastune.sites.lab.kernel_site import only_up
    from nastune.sites.lab.lab import Lab

    parts = lab_action(lambda: KernelLab().status() if kernel or only_up() else Lab().status())
    if json:
        from nastune import wire

        print(wire.LabStatus(parts=parts).dumps())
    else:
        outcomes.lab_status(console(), parts)
    if not all(p["ok"] for p in parts):
        raise typer.Exit(1)


@lab_app.command("inventory", short_help="Print the lab's Ansible inventory")
def lab_inventory(
    kernel: Annotated[bool, typer.Option("--kernel", help="The kernel lab's hosts.")] = False,
) -> None:
    """Print the lab's hosts as an Ansible INI inventory (for --inventory, and for Ansible): the
    kernel lab's when it is the one lab up."""
    from nastune.sites.lab.kernel import KernelLab
    from nastune.sites.lab.kernel_site import only_up
    from nastune.sites.lab.lab import Lab, LabError

    def action() -> str:
        path = KernelLab().inventory_path if kernel or only_up() else Lab().inventory_path
        if not path.exists():
            which = " --kernel" if kernel else ""
            raise LabError(f"the lab is not up: run `nastune lab up{which}` first")
        return path.read_text()

    print(lab_action(action), end="")


@lab_app.command(
    "exec",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    short_help="Run a command on a lab host",
)
def lab_exec(
    host: Annotated[str, typer.Argument(help="nas, client (the first), client2, ...")],
    command: Annotated[list[str], typer.Argument(help="The command and its arguments (after --).")],
) -> None:
    """Run a command on a lab host, e.g. `nastune lab exec client -- smbclient -N -L 10.77.0.1`."""
    import os

    from nastune.sites.lab.lab import Lab

    argv = lab_action(lambda: Lab().exec_argv(host, command))
    os.execvp(argv[0], argv)
