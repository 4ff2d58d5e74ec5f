"""The Pi's services and installer, checked offline: units, hardening, the installer, the lock."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.slow  # the installer runs into a directory tree, twice

UNITS = sorted((ROOT / "systemd").glob("clabber-*"))
SCRIPTS = [ROOT / "deploy" / "install.sh", ROOT / "run", ROOT / ".ci" / "run"]
SECURITY_LIMITS = {"clabber-web.service": 2.0, "clabber-kiosk.service": 4.0, "clabber-backup.service": 4.0}


def install(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(ROOT / "deploy" / "install.sh"), "--root", str(root), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


def tree(root: Path) -> dict[str, str]:
    """Every file and link below ``root`` (the venv's insides aside) with its content's hash."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if "/venv-" in f"/{rel}" and not rel.endswith(".clabber-installed") and rel.count("/") > 2:
            continue
        if rel.startswith("usr/lib/systemd/system"):
            continue
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_file():
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            out[rel] = "dir"
    return out


@pytest.fixture(scope="module")
def pi(tmp_path_factory):
    """A directory tree shaped like a fresh Pi's, installed into twice."""
    root = tmp_path_factory.mktemp("pi")
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / "cmdline.txt").write_text("console=tty1 root=PARTUUID=1 rootwait\n")
    (root / "etc").mkdir()
    # systemd's own units, so that verify can follow the dependencies of ours
    shutil.copytree("/lib/systemd/system", root / "usr" / "lib" / "systemd" / "system", symlinks=True)
    first = install(root, "--rotation", "90", "--size", "720x1280", "--usb")
    assert first.returncode == 0, first.stderr
    after_first = tree(root)
    second = install(root, "--rotation", "90", "--usb")
    assert second.returncode == 0, second.stderr
    return {"root": root, "first": after_first, "second": tree(root), "out": second.stdout}


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_systemd_analyze_verify_prints_nothing(pi, unit):
    r = subprocess.run(
        ["systemd-analyze", "verify", f"--root={pi['root']}", f"etc/systemd/system/{unit.name}"],
        cwd=pi["root"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and r.stdout == "" and r.stderr == "", r.stdout + r.stderr


@pytest.mark.parametrize("unit", sorted(SECURITY_LIMITS), ids=str)
def test_security_exposure_within_limits(pi, unit):
    r = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", f"--root={pi['root']}", unit], capture_output=True, text=True
    )
    score = float(re.search(r"Overall exposure level for \S+: (\d+\.\d+)", r.stdout).group(1))
    assert score <= SECURITY_LIMITS[unit], r.stdout[-2000:]


def test_the_installer_is_idempotent(pi):
    assert pi["first"] == pi["second"]
    assert "version 0.1.0 already installed" in pi["out"] and "keeping" in pi["out"]


def test_the_installed_tree(pi):
    root = pi["root"]
    assert os.readlink(root / "opt/clabber/venv") == "venv-0.1.0"
    version = subprocess.run([str(root / "opt/clabber/venv/bin/clabber"), "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and "0.1.0" in version.stdout
    for unit in (
        "multi-user.target.wants/clabber-kiosk.service",
        "multi-user.target.wants/clabber-web.service",
        "timers.target.wants/clabber-backup.timer",
    ):
        assert (root / "etc/systemd/system" / unit).is_symlink(), unit
    config = (root / "etc/clabber/config.toml").read_text()
    assert "rotation = 90" in config and "width = 720" in config and "height = 1280" in config
    assert (root / "boot/firmware/cmdline.txt").read_text().count("consoleblank=0") == 1
    passwd = (root / "etc/passwd").read_text()
    groups = {line.split(":")[0]: line.split(":")[3].strip() for line in (root / "etc/group").read_text().splitlines()}
    assert "clabber:" in passwd and "clabber-web:" in passwd
    assert all("clabber" in groups[g].split(",") for g in ("video", "render", "input", "gpio"))
    assert groups["clabber"] == "clabber-web"  # the web pages may read the database's folder
    assert "LABEL=CLABBER /mnt/clabber-usb" in (root / "etc/fstab").read_text()


def test_the_config_is_kept_on_upgrade_and_uninstall_keeps_the_games(tmp_path):
    root = tmp_path / "pi"
    (root / "etc").mkdir(parents=True)
    assert install(root).returncode == 0
    config = root / "etc/clabber/config.toml"
    config.write_text('table_name = "Table 7"\n')
    (root / "var/lib/clabber").mkdir(parents=True)
    (root / "var/lib/clabber/clabber.db").write_bytes(b"games")
    assert install(root).returncode == 0
    assert config.read_text() == 'table_name = "Table 7"\n'
    r = install(root, "--uninstall")
    assert r.returncode == 0 and not (root / "opt/clabber").exists()
    assert not list((root / "etc/systemd/system").glob("clabber-*"))
    assert config.exists() and (root / "var/lib/clabber/clabber.db").read_bytes() == b"games"
    assert install(root, "--purge").returncode == 0 and not config.exists()


def test_the_installer_refuses_bad_options(tmp_path):
    r = install(tmp_path, "--rotation", "45")
    assert r.returncode == 2 and "--rotation: 45" in r.stderr
    r = install(tmp_path, "--frobnicate")
    assert r.returncode == 2 and "unknown option" in r.stderr


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_shellcheck(script):
    r = subprocess.run(["shellcheck", str(script)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout


@pytest.mark.network
@pytest.mark.parametrize("python", ["3.11", "3.13"])
def test_the_locked_dependencies_resolve_for_a_64_bit_pi(tmp_path, python):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--disable-pip-version-check",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
            "--implementation",
            "cp",
            "--python-version",
            python,
            "--platform",
            "manylinux_2_36_aarch64",
            "--platform",
            "manylinux_2_28_aarch64",
            "--platform",
            "manylinux_2_17_aarch64",
            "--platform",
            "manylinux2014_aarch64",
            "-r",
            str(ROOT / "requirements.lock"),
            "-d",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    wanted = [line.split("==")[0] for line in (ROOT / "requirements.lock").read_text().splitlines() if "==" in line]
    assert len(list(tmp_path.glob("*.whl"))) == len(wanted)


def test_the_kiosk_tells_systemd_it_is_ready(tmp_path):
    import socket

    address = str(tmp_path / "notify.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(address)
    server.settimeout(30)
    exe = Path(sys.executable).with_name("clabber")
    env = {**os.environ, "NOTIFY_SOCKET": address, "WATCHDOG_USEC": "200000"}
    r = subprocess.run(
        [str(exe), "kiosk", "--db", str(tmp_path / "k.db"), "--headless", "--gpio", "off", "--exit-at-first-frame"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr[-1500:]
    assert server.recv(64) == b"READY=1"
    server.close()
