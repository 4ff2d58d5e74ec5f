"""The Pi's services and installer, checked offline: units, hardening, the installer, the lock."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import ROOT, stick_mount, unavailable

# The installer runs into directory trees, each shared by a module's tests: one worker runs them all.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("installer")]

UNITS = sorted((ROOT / "systemd").glob("clabber-*"))
SCRIPTS = [
    ROOT / "deploy" / "install.sh",
    ROOT / "deploy" / "test-arm64.sh",
    ROOT / "deploy" / "arm64-smoke.sh",
    ROOT / "deploy" / "image.sh",
    ROOT / "deploy" / "image" / "customize.sh",
    ROOT / "run",
    ROOT / ".ci" / "run",
]
SECURITY_LIMITS = {
    "clabber-web.service": 2.0,
    "clabber-league.service": 2.0,
    "clabber-league@8091.service": 2.0,
    "clabber-sync.service": 2.0,
    "clabber-kiosk.service": 4.0,
    "clabber-backup.service": 4.0,
}


# The stick's line before the automount was dropped (with no stick in, it failed the backup).
OLD_STICK_LINE = (
    "LABEL=CLABBER /mnt/clabber-usb vfat noauto,nofail,x-systemd.automount,uid=clabber,gid=clabber,umask=0027 0 0"
)


def install(root: Path, *args: str, src: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(src / "deploy" / "install.sh"), "--root", str(root), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


def source_copy(dest: Path) -> Path:
    """A copy of the checkout's installable parts, to change as a developer would."""
    for part in ("engine", "shared", "kiosk", "league", "deploy", "systemd"):
        shutil.copytree(ROOT / part, dest / part, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "requirements.lock"):
        shutil.copy(ROOT / name, dest / name)
    return dest


def venv_name(root: Path) -> str:
    return os.readlink(root / "opt/clabber/venv")


def lock_pins(path: Path) -> dict[str, str]:
    """name -> version for every pin in a lock file (names normalised as pip does)."""
    pins = {}
    for line in path.read_text().splitlines():
        if "==" in line and not line.startswith(("#", " ")):
            name, version = line.split(" ")[0].split("==")
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    return pins


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
    etc = root / "etc"
    etc.mkdir()
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\npi:x:1000:1000::/home/pi:/bin/bash\n")
    (etc / "group").write_text(
        "root:x:0:\nlp:x:7:\nvideo:x:44:pi\nrender:x:105:pi\ninput:x:106:pi\ngpio:x:997:pi\npi:x:1000:\n"
    )
    (etc / "shadow").write_text("root:*:19000:0:99999:7:::\npi:*:19000:0:99999:7:::\n")
    (etc / "gshadow").write_text("root:*::\nlp:!::\nvideo:!::pi\nrender:!::pi\ninput:!::pi\ngpio:!::pi\npi:!::\n")
    (etc / ".pwd.lock").touch()  # as the shadow tools leave it
    for folder in ("mnt", "opt", "var/lib", "usr/lib/sysusers.d"):
        (root / folder).mkdir(parents=True)
    for wants, unit in (("multi-user.target.wants", "ssh.service"), ("timers.target.wants", "apt-daily.timer")):
        (etc / "systemd/system" / wants).mkdir(parents=True)  # with what a Pi has enabled there
        (etc / "systemd/system" / wants / unit).symlink_to(f"/lib/systemd/system/{unit}")
    (etc / "fstab").write_text("proc /proc proc defaults 0 0\nPARTUUID=1-01 /boot/firmware vfat defaults 0 2\n")
    # systemd's own units, so that verify can follow the dependencies of ours
    shutil.copytree("/lib/systemd/system", root / "usr" / "lib" / "systemd" / "system", symlinks=True)
    # A Pi's console has its login prompt on tty1
    enable = subprocess.run(["systemctl", f"--root={root}", "enable", "getty@tty1.service"], capture_output=True)
    assert enable.returncode == 0, enable.stderr
    before = tree(root)
    first = install(root, "--rotation", "90", "--size", "720x1280", "--usb")
    assert first.returncode == 0, first.stderr
    after_first = tree(root)
    # A Pi set up before with the stick on an automount: the second install puts the line right.
    with (etc / "fstab").open("a") as f:
        f.write(f"{OLD_STICK_LINE}\n")
    second = install(root, "--rotation", "90", "--usb")
    assert second.returncode == 0, second.stderr
    return {
        "root": root,
        "before": before,
        "first": after_first,
        "second": tree(root),
        "out": second.stdout,
        "first_out": first.stdout,
    }


@pytest.fixture(scope="module")
def league_host(tmp_path_factory):
    """A directory tree with the league server installed, and not the kiosk."""
    root = tmp_path_factory.mktemp("league")
    (root / "etc").mkdir()
    shutil.copytree("/lib/systemd/system", root / "usr" / "lib" / "systemd" / "system", symlinks=True)
    r = install(root, "--parts", "league")
    assert r.returncode == 0, r.stderr
    return {"root": root, "out": r.stdout}


def _host(request: pytest.FixtureRequest, unit: str) -> Path:
    """The installed tree a unit belongs to: the league's units on the league host, the rest on the Pi."""
    return request.getfixturevalue("league_host" if unit.startswith("clabber-league") else "pi")["root"]


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_systemd_analyze_verify_prints_nothing(request, unit):
    root = _host(request, unit.name)
    path = root / "etc/systemd/system" / unit.name
    if unit.name.endswith("@.service"):  # a template is verified as one of its instances
        path = path.with_name(unit.name.replace("@.", "@8091."))
        shutil.copy(root / "etc/systemd/system" / unit.name, path)
    r = subprocess.run(
        ["systemd-analyze", "verify", f"--root={root}", str(path.relative_to(root))],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and r.stdout == "" and r.stderr == "", r.stdout + r.stderr


@pytest.mark.parametrize("unit", sorted(SECURITY_LIMITS), ids=str)
def test_security_exposure_within_limits(request, unit):
    root = _host(request, unit)
    r = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", f"--root={root}", unit], capture_output=True, text=True
    )
    score = float(re.search(r"Overall exposure level for \S+: (\d+\.\d+)", r.stdout).group(1))
    assert score <= SECURITY_LIMITS[unit], r.stdout[-2000:]


def test_the_installer_is_idempotent(pi):
    assert pi["first"] == pi["second"]
    assert "version 0.1.0 already installed" in pi["out"] and "keeping" in pi["out"]


def test_the_installed_tree(pi):
    root = pi["root"]
    assert re.fullmatch(r"venv-0\.1\.0-[0-9a-f]{12}", venv_name(root))  # the version and a hash of the content
    version = subprocess.run([str(root / "opt/clabber/venv/bin/clabber"), "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and "0.1.0" in version.stdout
    for unit in (
        "multi-user.target.wants/clabber-kiosk.service",
        "multi-user.target.wants/clabber-web.service",
        "multi-user.target.wants/clabber-sync.service",
        "timers.target.wants/clabber-backup.timer",
    ):
        assert (root / "etc/systemd/system" / unit).is_symlink(), unit
    config = (root / "etc/clabber/config.toml").read_text()
    assert "rotation = 90" in config and "width = 720" in config and "height = 1280" in config
    from kiosk.config import load_config

    cfg = load_config(env={"CLABBER_CONFIG": str(root / "etc/clabber/config.toml"), "HOME": str(root)})
    assert (cfg.width, cfg.height, cfg.rotation) == (720, 1280, 90)
    # A command run on the Pi by hand (sudo -u clabber clabber league join ...) uses the services' database.
    assert (str(cfg.db), str(cfg.backup_dir)) == ("/var/lib/clabber/clabber.db", "/var/lib/clabber/backups")
    assert not (root / "etc/systemd/system/getty.target.wants/getty@tty1.service").exists()
    assert (root / "boot/firmware/cmdline.txt").read_text().count("consoleblank=0") == 1
    passwd = (root / "etc/passwd").read_text()
    groups = {line.split(":")[0]: line.split(":")[3].strip() for line in (root / "etc/group").read_text().splitlines()}
    assert "clabber:" in passwd and "clabber-web:" in passwd
    assert all("clabber" in groups[g].split(",") for g in ("video", "render", "input", "gpio", "lp"))
    assert groups["clabber"] == "clabber-web"  # the web pages may read the database's folder
    assert OLD_STICK_LINE not in (root / "etc/fstab").read_text()
    assert stick_mount(root) == {"mounted": "when the stick is plugged in", "automount": False, "lines": 1}
    pip = subprocess.run([str(root / "opt/clabber/venv/bin/python"), "-m", "pip", "--version"], capture_output=True,
                         text=True)  # fmt: skip
    assert pip.stdout.startswith(
        f"pip {lock_pins(ROOT / 'requirements.lock')['pip']} "
    )  # the locked pip, not the newest


def _packages(root: Path) -> set[str]:
    """The distributions installed in the tree's environment, by normalised name."""
    found = (root / "opt/clabber/venv").resolve().glob("lib/python3*/site-packages/*.dist-info")
    return {re.sub(r"[-_.]+", "-", d.name.removesuffix(".dist-info").rsplit("-", 1)[0]).lower() for d in found}


def test_each_part_installs_its_own_libraries_and_starts_from_them(pi, league_host, tmp_path):
    """A Pi installs no database server's driver, migrations, ORM or chart library; a league host
    no Kivy, GPIO or printer library. Each starts from its own install: the kiosk scores a hand and
    starts a game, the league server answers its pages; and each says in words that the other part
    is not installed here."""
    kiosk, league = _packages(pi["root"]), _packages(league_host["root"])
    assert {"kivy", "gpiozero", "sqlite-utils", "python-escpos", "qrcode"} <= kiosk
    assert not {"sqlalchemy", "alembic", "psycopg", "psycopg-binary", "pygal", "argon2-cffi"} & kiosk
    assert {"sqlalchemy", "alembic", "psycopg", "pygal", "argon2-cffi", "uvicorn"} <= league
    assert not {"kivy", "gpiozero", "sqlite-utils", "python-escpos", "pillow"} & league
    assert (league_host["root"] / "opt/clabber/parts").read_text() == "league\n"
    assert (league_host["root"] / "etc/systemd/system/multi-user.target.wants/clabber-league.service").is_symlink()
    assert not (league_host["root"] / "etc/systemd/system/clabber-kiosk.service").exists()
    assert not (pi["root"] / "etc/systemd/system/clabber-league.service").exists()

    env = {**os.environ, "HOME": str(tmp_path), "CLABBER_DB": str(tmp_path / "kiosk.db"), "CLABBER_LEAGUE_DB": ""}
    on_pi = str(pi["root"] / "opt/clabber/venv/bin/clabber")
    scored = subprocess.run([on_pi, "score", str(ROOT / "examples/hand-quick.json")], capture_output=True, text=True,
                            env=env, timeout=60)  # fmt: skip
    assert scored.returncode == 0 and "NS" in scored.stdout, scored.stderr
    game = subprocess.run([on_pi, "game", "--db", str(tmp_path / "kiosk.db"), "new", "--teams", "Aces", "Kings"],
                          capture_output=True, text=True, env=env, timeout=60)  # fmt: skip
    assert game.returncode == 0, game.stderr
    python = str(pi["root"] / "opt/clabber/venv/bin/python")
    kivy = subprocess.run([python, "-c", "import kiosk.ui.app, kiosk.buttons, kiosk.printer"],
                          capture_output=True, text=True, env={**env, "KIVY_NO_ARGS": "1"}, timeout=60)  # fmt: skip
    assert kivy.returncode == 0, kivy.stderr
    serve = subprocess.run([on_pi, "league", "serve"], capture_output=True,
                           text=True, env=env, timeout=60)  # fmt: skip
    assert serve.returncode == 2 and "No such command 'serve'" in serve.stderr  # the kiosk's own league commands only

    on_host = str(league_host["root"] / "opt/clabber/venv/bin/clabber")
    # The record commands are clabber's own: both installs have them (tests/test_record_commands.py).
    for clabber in (on_pi, on_host):
        for command, record in (
            ("score", "hand-quick"),
            ("sheet", "game"),
            ("replay", "hand-renege"),
            ("solve", "hand-renege"),
        ):
            said = subprocess.run([clabber, command, str(ROOT / f"examples/{record}.json")], capture_output=True,
                                  text=True, env=env, timeout=60)  # fmt: skip
            assert said.returncode == 0 and said.stdout.strip(), (clabber, command, said.stderr)
    refused = subprocess.run([on_host, "game", "list"], capture_output=True, text=True, env=env, timeout=60)
    assert refused.returncode == 2 and "this machine has not installed the kiosk" in refused.stderr
    from tests.web_helpers import free_port

    port = free_port()
    server = subprocess.Popen([on_host, "league", "--db", str(tmp_path / "league.db"), "serve", "--port", str(port)],
                              stderr=subprocess.PIPE, env=env)  # fmt: skip
    try:
        from tests.sync_helpers import wait_until

        def answers() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    return r.status == 200
            except OSError:
                return server.poll() is not None

        wait_until(answers, 30, "the league server's first page")
        assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_each_parts_list_of_packages_is_up_to_date():
    """deploy/kiosk.packages and deploy/league.packages follow pyproject.toml's extras (deploy/parts.py)."""
    r = subprocess.run([sys.executable, str(ROOT / "deploy/parts.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    locked = set(lock_pins(ROOT / "requirements.lock"))
    for part in ("kiosk", "league"):
        listed = {n for n in (ROOT / f"deploy/{part}.packages").read_text().splitlines() if not n.startswith("#")}
        assert listed <= locked, listed - locked


def test_without_python3_lgpio_gpio_comes_from_pypi(pi):
    """Plain Debian has no python3-lgpio (nor has this machine): the installer takes PyPI's wheel."""
    assert "GPIO: no python3-lgpio on this system; lgpio 0.2.2.0 from PyPI instead" in pi["first_out"]
    r = subprocess.run([str(pi["root"] / "opt/clabber/venv/bin/python"), "-c", "import lgpio; print(lgpio.__file__)"],
                       capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 0 and r.stdout.startswith(str(pi["root"] / "opt/clabber/venv/")), r.stderr


def test_purge_undoes_what_install_did(pi, tmp_path):
    root = tmp_path / "pi"
    shutil.copytree(pi["root"], root, symlinks=True)
    (root / "var/lib/clabber").mkdir(parents=True)
    (root / "var/lib/clabber/clabber.db").write_bytes(b"games")
    r = install(root, "--purge")
    assert r.returncode == 0, r.stderr
    after = {k: v for k, v in tree(root).items() if not k.endswith("-")}  # passwd- and the like: the tools' backups
    assert after == {k: v for k, v in pi["before"].items() if not k.endswith("-")}, r.stdout
    assert "removed consoleblank=0" in r.stdout and "login prompt is back on tty1" in r.stdout


def test_a_serial_or_network_printer_is_let_in_by_a_drop_in_and_nothing_more(pi, tmp_path):
    root = tmp_path / "pi"
    shutil.copytree(pi["root"], root, symlinks=True)
    config = root / "etc/clabber/config.toml"
    dropin = root / "etc/systemd/system/clabber-kiosk.service.d/printer.conf"
    assert not dropin.exists()  # USB printers need none: the unit allows them
    template = config.read_text()

    def with_printer(*lines: str) -> subprocess.CompletedProcess[str]:
        text = template
        for line in lines:
            key = line.split(" = ")[0]
            text = re.sub(rf"^# {key} = .*$", line, text, count=1, flags=re.M)
        config.write_text(text)
        r = install(root)
        assert r.returncode == 0, r.stderr
        return r

    def checked() -> float:
        unit = "etc/systemd/system/clabber-kiosk.service"
        verify = subprocess.run(["systemd-analyze", "verify", f"--root={root}", unit], cwd=root, capture_output=True,
                                text=True)  # fmt: skip
        assert verify.returncode == 0 and verify.stdout + verify.stderr == "", verify.stdout + verify.stderr
        r = subprocess.run(["systemd-analyze", "security", "--offline=true", f"--root={root}", "clabber-kiosk.service"],
                           capture_output=True, text=True)  # fmt: skip
        return float(re.search(r"Overall exposure level for \S+: (\d+\.\d+)", r.stdout).group(1))

    with_printer('connection = "network"', 'host = "192.168.1.50"')
    assert (
        "IPAddressAllow=192.168.1.50\n" in dropin.read_text()
        and "RestrictAddressFamilies=AF_INET\n" in dropin.read_text()
    )
    assert checked() <= SECURITY_LIMITS["clabber-kiosk.service"]
    with_printer('connection = "serial"', 'device = "/dev/ttyUSB0"')
    assert "DeviceAllow=char-ttyUSB rw\nSupplementaryGroups=dialout\n" in dropin.read_text()
    assert "IPAddress" not in dropin.read_text() and checked() <= SECURITY_LIMITS["clabber-kiosk.service"]
    r = with_printer('connection = "serial"')  # no port: refused, so nothing is let in
    assert "printer.device: give the serial port" in r.stdout and not dropin.exists()
    with_printer('connection = "serial"', 'device = "/dev/ttyAMA0"')
    r = with_printer('connection = "usb"', 'usb = "04b8:0e28"')
    assert not dropin.parent.exists() and f"removed {dropin}" in r.stdout
    with_printer('connection = "serial"', 'device = "/dev/ttyAMA0"')
    assert install(root, "--uninstall").returncode == 0 and not dropin.parent.exists()


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


def test_size_is_checked_against_the_kiosks_own_bounds(tmp_path):
    root = tmp_path / "pi"
    root.mkdir()
    for size, why in (("9x9", "--size: 9x9: width 9 must be a whole number of pixels from 200 to 4000"),
                      ("800x4001", "--size: 800x4001: height 4001 must be a whole number of pixels from 200 to 4000"),
                      ("800x480/; s/^/x/", "--size: '800x480/; s/^/x/' is not WxH"),
                      ("800x480\n[gpio]", "is not WxH"), ("x480", "is not WxH"), ("800x", "is not WxH")):  # fmt: skip
        r = install(root, "--size", size)
        assert r.returncode == 2 and why in r.stderr, (size, r.stderr)
        assert "Traceback" not in r.stderr
    assert list(root.iterdir()) == []  # refused before anything was written


def test_root_must_exist(tmp_path):
    r = install(tmp_path / "nowhere")
    assert r.returncode == 2 and "--root" in r.stderr and "no such directory" in r.stderr


@pytest.fixture(scope="module")
def fixed(tmp_path_factory):
    """A bare directory installed into from a checkout on plain Debian with no lgpio wheel for its
    Python, then again after a fix to the code that kept the version number, then a third time."""
    base = tmp_path_factory.mktemp("fixed")
    src = source_copy(base / "src")
    # As on a Python that PyPI has no lgpio wheel for (3.13 today): no file matches the lock.
    (src / "deploy/lgpio.lock").write_text("lgpio==0.0.99 --hash=sha256:" + "0" * 64 + "\n")
    root = base / "root"
    root.mkdir()
    runs = [install(root, src=src)]
    first = venv_name(root)
    cli = src / "shared/cli.py"
    cli.write_text(
        cli.read_text().replace('"""Clabber table kiosk: score hands', '"""Clabber table kiosk (fixed): score hands')
    )
    runs.append(install(root, src=src))
    runs.append(install(root, src=src))
    for r in runs:
        assert r.returncode == 0, r.stdout + r.stderr
    return {"root": root, "runs": runs, "first": first}


def test_a_root_without_etc_gets_one(fixed):
    assert "has no etc/: created it" in fixed["runs"][0].stdout
    assert "clabber:" in (fixed["root"] / "etc/passwd").read_text()


def test_without_any_lgpio_the_install_goes_on_without_gpio(fixed):
    out = fixed["runs"][0].stdout
    assert "GPIO unavailable: no python3-lgpio on this system and no lgpio wheel on PyPI for Python 3." in out
    assert "the kiosk runs without the dealer buttons and seat lights" in out


def test_a_fix_under_the_same_version_is_installed(fixed):
    root = fixed["root"]
    second = venv_name(root)
    assert second != fixed["first"] and second.startswith("venv-0.1.0-")
    assert "version 0.1.0 with changed content" in fixed["runs"][1].stdout
    assert "already installed" in fixed["runs"][2].stdout and venv_name(root) == second
    helps = subprocess.run([str(root / "opt/clabber/venv/bin/clabber"), "--help"], capture_output=True, text=True)
    assert "Clabber table kiosk (fixed)" in helps.stdout
    assert os.readlink(root / "opt/clabber/venv.previous") == fixed["first"]  # --rollback goes back to it


def test_a_wheel_that_differs_from_the_lock_is_refused(tmp_path):
    src = source_copy(tmp_path / "src")
    lock = src / "requirements.lock"
    # Every hash of one package replaced: whatever file pip finds for it differs from the lock.
    text = re.sub(r"(anyio==[^\n]*\n(?:\s+--hash=sha256:[0-9a-f]+[ \\]*\n)+)",
                  lambda m: re.sub(r"[0-9a-f]{64}", "1" * 64, m.group(1)), lock.read_text())  # fmt: skip
    assert text != lock.read_text()
    lock.write_text(text)
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    r = install(root, src=src)
    assert r.returncode == 2 and "installing the Python packages failed" in r.stderr
    assert "THESE PACKAGES DO NOT MATCH THE HASHES" in r.stderr
    assert not (root / "opt/clabber/venv").exists()


def test_every_locked_package_carries_hashes_and_the_dev_lock_agrees():
    entries = re.split(r"\n(?=\S)", (ROOT / "requirements.lock").read_text().strip())
    pins = [e for e in entries if not e.startswith("#")]
    assert len(pins) == len(lock_pins(ROOT / "requirements.lock")) > 20
    for entry in pins:
        assert re.search(r"--hash=sha256:[0-9a-f]{64}", entry), entry.splitlines()[0]
    dev = lock_pins(ROOT / "requirements-dev.lock")
    for name, version in lock_pins(ROOT / "requirements.lock").items():
        assert dev.get(name) == version, f"{name}: {version} in requirements.lock, {dev.get(name)} in the dev lock"


def test_the_apt_step_goes_on_without_raspberry_pi_os_packages(tmp_path):
    """On plain Debian python3-lgpio is not in the package lists: apt is not asked for it."""
    if os.geteuid() != 0:
        unavailable("the apt step runs as root")
    stubs = tmp_path / "bin"
    stubs.mkdir()
    log = tmp_path / "apt.log"
    (stubs / "apt-get").write_text(f'#!/bin/sh\necho "apt-get $*" >> {log}\n')
    candidate = 'echo "  Installed: (none)"; echo "  Candidate: 2.2-1+rpt1"'
    (stubs / "apt-cache").write_text(
        f'#!/bin/sh\nif [ "$2" = "$HAS" ]; then {candidate}; else echo "  Candidate: (none)"; fi\n'
    )
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    env = {**os.environ, "PATH": f"{stubs}:{os.environ['PATH']}"}
    cmd = ["bash", str(ROOT / "deploy/install.sh"), "--apt-only"]
    debian = subprocess.run(cmd, capture_output=True, text=True, env={**env, "HAS": "none"})
    assert debian.returncode == 0, debian.stderr
    assert "python3-lgpio is not in this system's package lists" in debian.stdout
    install_line = log.read_text().splitlines()[-1]
    assert install_line.startswith("apt-get install") and "libgl1 " in install_line and "lgpio" not in install_line
    raspios = subprocess.run(cmd, capture_output=True, text=True, env={**env, "HAS": "python3-lgpio"})
    assert raspios.returncode == 0 and "python3-lgpio" in log.read_text().splitlines()[-1]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_shellcheck(script):
    r = subprocess.run(["shellcheck", str(script)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout


@pytest.mark.network
@pytest.mark.parametrize("python", ["3.11", "3.13"])
def test_the_locked_dependencies_resolve_for_a_64_bit_pi(tmp_path, python):
    r = subprocess.run(
        # With the dependencies and every hash checked: the lock is complete and exact for a Pi.
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--disable-pip-version-check",
            "--quiet",
            "--require-hashes",
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


def test_the_sync_worker_writes_only_the_kiosks_folder_has_no_devices_and_reaches_only_the_network():
    """clabber-sync runs as the kiosk's user beside it: the kiosk's state folder is all it may write."""
    unit = dict(
        line.split("=", 1) for line in (ROOT / "systemd/clabber-sync.service").read_text().splitlines() if "=" in line
    )
    assert unit["User"] == "clabber" and unit["StateDirectory"] == "clabber" and unit["ProtectSystem"] == "strict"
    assert "ReadWritePaths" not in unit and unit["ProtectHome"] == "yes"
    assert unit["PrivateDevices"] == "yes" and unit["DevicePolicy"] == "closed"
    assert set(unit["RestrictAddressFamilies"].split()) == {"AF_INET", "AF_INET6", "AF_UNIX"}
    assert unit["ExecStart"] == "/opt/clabber/venv/bin/clabber league sync"


def test_uninstall_leaves_no_link_to_a_unit_and_purge_takes_the_gpio_group_it_made(fixed, tmp_path):
    """A root with no gpio group (plain Debian): the install made one, --purge takes it away. A link an
    earlier installer left to a unit of a part no longer installed goes with --uninstall."""
    root = tmp_path / "root"
    shutil.copytree(fixed["root"], root, symlinks=True)
    assert "gpio:" in (root / "etc/group").read_text()
    wants = root / "etc/systemd/system/multi-user.target.wants"
    wants.mkdir(parents=True, exist_ok=True)
    (wants / "clabber-league.service").symlink_to("/etc/systemd/system/clabber-league.service")
    r = install(root, "--uninstall")
    assert r.returncode == 0, r.stderr
    dangling = [p for p in (root / "etc/systemd").rglob("*") if p.is_symlink() and "clabber" in p.name]
    assert dangling == []
    r = install(root, "--purge")
    assert r.returncode == 0, r.stderr
    assert "removed the gpio group the installer made" in r.stdout
    assert not any(line.startswith("gpio:") for line in (root / "etc/group").read_text().splitlines())
