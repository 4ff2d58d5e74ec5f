"""The record commands (``clabber score|sheet|replay|solve``) are ``clabber``'s own: they need the
engine alone, so they run from the base distribution, with neither part's extra installed, and say
the same there as in the development install. (A kiosk-only and a league-only install run them in
tests/test_deploy.py.)"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.helpers import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("installer")]

RECORDS = {
    "score": "examples/hand-quick.json",
    "sheet": "examples/game.json",
    "replay": "examples/hand-renege.json",
    "solve": "examples/hand-renege.json",
}


def _lock_entries(names: set[str], lock: Path) -> str:
    """The lock's pins and hashes of ``names``, as deploy/install.sh takes them."""
    out, taking = [], False
    for line in lock.read_text().splitlines():
        if not line.startswith(" "):
            taking = line.split("==")[0].lower() in names
        if taking:
            out.append(line)
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with the project and its base dependencies only, from the lock."""
    sys.path.insert(0, str(ROOT / "deploy"))
    try:
        import parts
    finally:
        sys.path.pop(0)
    folder = tmp_path_factory.mktemp("base")
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    names = parts.needs(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"])
    (folder / "base.lock").write_text(_lock_entries(names, ROOT / "requirements.lock"))
    pip = [str(venv / "bin/python"), "-m", "pip", "--disable-pip-version-check", "--no-input", "-q"]
    locked = subprocess.run(
        [*pip, "install", "--require-hashes", "--only-binary=:all:", "-r", str(folder / "base.lock")],
        capture_output=True,
        text=True,
    )
    assert locked.returncode == 0, locked.stderr
    wheel = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(folder), str(ROOT)],
        capture_output=True,
        text=True,
        cwd=folder,
    )
    assert wheel.returncode == 0, wheel.stderr
    done = subprocess.run([*pip, "install", "--no-deps", str(next(folder.glob("clabber_kiosk-*.whl")))])
    assert done.returncode == 0
    return venv


def _run(clabber: Path | str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(clabber), *args], capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_the_base_distribution_has_neither_part(base: Path) -> None:
    found = subprocess.run(
        [
            str(base / "bin/python"),
            "-c",
            "import importlib.util as u; print([m for m in ('kivy', 'sqlalchemy') if u.find_spec(m)])",
        ],
        capture_output=True,
        text=True,
    )
    assert found.stdout.strip() == "[]", found.stderr
    game = _run(base / "bin/clabber", "game", "list")
    assert game.returncode == 2 and "this machine has not installed the kiosk" in game.stderr


@pytest.mark.parametrize("command", sorted(RECORDS))
def test_each_record_command_runs_from_the_base_distribution_and_says_the_same(base: Path, command: str) -> None:
    here = _run(base / "bin/clabber", command, RECORDS[command])
    assert here.returncode == 0, here.stderr
    assert here.stdout.strip()
    dev = _run(Path(sys.executable).parent / "clabber", command, RECORDS[command])
    assert here.stdout == dev.stdout


def test_a_bad_record_is_refused_in_words_from_the_base_distribution(base: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "clabber-hand/1", "bids": [')
    said = _run(base / "bin/clabber", "score", str(bad))
    assert said.returncode == 2 and said.stdout == "" and "Traceback" not in said.stderr and said.stderr.strip()


def test_the_help_lists_the_record_commands(base: Path) -> None:
    said = _run(base / "bin/clabber", "--help")
    assert said.returncode == 0
    assert all(f"  {command} " in said.stdout for command in RECORDS), said.stdout
