"""The kernel lab remembers that KVM stalled its guest under this QEMU and this host's kernel,
so each later boot goes to emulation at once; an upgrade of either tries KVM again."""

from __future__ import annotations

from nastune.lab.guest import machine


def test_a_stall_is_remembered_until_qemu_or_the_host_kernel_changes(tmp_path, monkeypatch):
    mark = tmp_path / machine.STALLED
    monkeypatch.setattr(machine, "_host", lambda: "QEMU emulator version 7.2.19; host kernel 6.1.0-40\n")
    assert not machine.stalled_before(mark)  # never tried: KVM first
    machine.remember(mark, stalled=True)
    assert machine.stalled_before(mark)
    monkeypatch.setattr(machine, "_host", lambda: "QEMU emulator version 8.2.2; host kernel 6.1.0-40\n")
    assert not machine.stalled_before(mark)  # another QEMU: KVM is tried again
    machine.remember(mark, stalled=False)  # and it ran
    assert not mark.exists()


def test_kvm_is_skipped_without_dev_kvm_under_pvm_and_after_a_stall(tmp_path, monkeypatch):
    monkeypatch.setattr(machine, "_host", lambda: "QEMU emulator version 7.2.19; host kernel 6.18\n")
    dev, modules, mark = tmp_path / "kvm", tmp_path / "module", tmp_path / machine.STALLED
    (modules / "kvm").mkdir(parents=True)
    assert machine.why_not_kvm(mark, dev, modules) == "no /dev/kvm here"
    dev.touch()
    assert machine.why_not_kvm(mark, dev, modules) is None  # plain KVM: tried first
    machine.remember(mark, stalled=True)
    assert "stalled this guest here before" in (machine.why_not_kvm(mark, dev, modules) or "")
    machine.remember(mark, stalled=False)
    (modules / "kvm_pvm").mkdir()
    assert "PVM" in (machine.why_not_kvm(mark, dev, modules) or "")  # never tried: it cannot run Debian's kernel
