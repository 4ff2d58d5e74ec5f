"""The card's A/B layout (deploy/image/slots.sh) over a small built root: what a running Pi writes
moves to the data partition and is bound back, the system slot stays read-only, RAUC finds both
slots by the card's partition ids and trusts the keyring given, and the boot partition holds U-Boot,
its script made from deploy/image/boot.cmd, the kernel's line without a root and the boot order.
(The image's own build and boot: ./run image and ./run test-image.)"""

from __future__ import annotations

import configparser
import gzip
import subprocess

import pytest

from tests.helpers import ROOT, stick_mount

SLOTS = ROOT / "deploy/image/slots.sh"


@pytest.fixture
def built(tmp_path):
    """A root as customize.sh leaves it, with the kiosk's state in it and the Pi's boot files."""
    root = tmp_path / "root"
    for d in (
        "var/lib/clabber",
        "var/lib/systemd",
        "var/log",
        "etc/clabber",
        "etc/systemd/system/multi-user.target.wants",
    ):
        (root / d).mkdir(parents=True)
    (root / "var/lib/clabber/clabber.db").write_bytes(b"games")
    (root / "etc/clabber/config.toml").write_text("# the kiosk's settings\n")
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/cmdline.txt").write_text("console=tty0 root=LABEL=clabber-root rw rootwait quiet\n")
    (root / "boot/firmware/config.txt").write_text(
        "arm_64bit=1\nkernel=vmlinuz-6.12\ninitramfs initrd.img-6.12 followkernel\n"
    )
    (root / "boot/firmware/vmlinuz-6.12").write_bytes(b"old copy")
    (root / "boot/vmlinuz-6.12.95+deb12-arm64").write_bytes(gzip.compress(b"ARM64 Image"))
    (root / "boot/initrd.img-6.12.95+deb12-arm64").write_bytes(b"initramfs")
    (root / "usr/lib/u-boot/rpi_arm64").mkdir(parents=True)
    (root / "usr/lib/u-boot/rpi_arm64/u-boot.bin").write_bytes(b"u-boot for the Pi")
    keyring = tmp_path / "cert.pem"
    keyring.write_text("-----BEGIN CERTIFICATE-----\n")
    data = tmp_path / "data"
    data.mkdir()
    done = subprocess.run(
        ["bash", str(SLOTS), str(root), str(data), "1a2b3c4d", str(keyring)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return root, data


def test_what_a_running_pi_writes_is_on_the_data_partition_bound_back(built):
    root, data = built
    assert (data / "var/lib/clabber/clabber.db").read_bytes() == b"games"
    assert (data / "etc/clabber/config.toml").exists() and not any((root / "var/lib/clabber").iterdir())
    fstab = [
        line.split() for line in (root / "etc/fstab").read_text().splitlines() if line and not line.startswith("#")
    ]
    mounts = {f[1]: f for f in fstab}
    assert "/" not in mounts  # the slot stays as the kernel mounted it: read-only
    assert mounts["/data"][0] == "PARTUUID=1a2b3c4d-04"
    for d in ("/var/lib/clabber", "/var/lib/clabber-update", "/var/log", "/etc/clabber", "/var/lib/systemd"):
        assert mounts[d][0] == f"/data{d}" and mounts[d][3].startswith("bind"), d
        assert (data / d.lstrip("/")).is_dir()
    assert mounts["/tmp"][2] == mounts["/var/tmp"][2] == "tmpfs"
    # The backup stick as on a Pi set up by hand (deploy/clabber-usb.fstab): mounted when plugged in.
    assert stick_mount(root) == {"mounted": "when the stick is plugged in", "automount": False, "lines": 1}
    assert (root / "mnt/clabber-usb").is_dir()


def test_rauc_finds_both_slots_by_partition_id_and_trusts_the_keyring(built):
    root, _ = built
    conf = configparser.ConfigParser()
    conf.read(root / "etc/rauc/system.conf")
    assert conf["system"]["compatible"] == "clabber-pi-arm64" and conf["system"]["data-directory"] == "/data/rauc"
    assert (
        conf["slot.rootfs.0"]["device"] == "/dev/disk/by-partuuid/1a2b3c4d-02"
        and conf["slot.rootfs.0"]["bootname"] == "A"
    )
    assert (
        conf["slot.rootfs.1"]["device"] == "/dev/disk/by-partuuid/1a2b3c4d-03"
        and conf["slot.rootfs.1"]["bootname"] == "B"
    )
    assert (root / "etc/rauc/keyring.pem").read_text().startswith("-----BEGIN CERTIFICATE")
    assert (root / conf["handlers"]["bootloader-custom-backend"].lstrip("/")).stat().st_mode & 0o111
    for unit in ("clabber-update.service", "clabber-update-check.service"):
        assert (root / "etc/systemd/system/multi-user.target.wants" / unit).is_symlink()


def test_the_boot_partition_starts_u_boot_which_runs_the_cards_script(built):
    root, _ = built
    boot = root / "boot/firmware"
    config = (boot / "config.txt").read_text()
    assert "kernel=u-boot.bin" in config and "initramfs" not in config
    assert (boot / "u-boot.bin").read_bytes() == b"u-boot for the Pi"
    listed = subprocess.run(["dumpimage", "-l", str(boot / "boot.scr")], capture_output=True, text=True)
    assert listed.returncode == 0 and "Script" in listed.stdout and "Clabber boot order" in listed.stdout
    assert "clabber-slot.env" in (boot / "boot.scr").read_bytes().decode(errors="replace")
    line = (boot / "clabber-boot.env").read_text()
    assert line == "CMDLINE=console=tty0 rootwait quiet\n"  # the root and rw are the script's to give
    assert (boot / "clabber-slot.env").read_text() == "BOOT_ORDER=A B\nBOOT_A_LEFT=3\nBOOT_B_LEFT=3\n"
    assert not (boot / "vmlinuz-6.12").exists()  # each slot has its own kernel
    assert (root / "boot/clabber/Image").read_bytes() == b"ARM64 Image"
    assert (root / "boot/clabber/initrd.img").read_bytes() == b"initramfs"
