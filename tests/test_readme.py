"""The README's examples run as written: the engine's in Python, the command line's in a shell."""

from __future__ import annotations

import doctest
import re
import shlex

import pytest
from click.testing import CliRunner

from shared.cli import cli
from tests.helpers import ROOT

README = ROOT / "README.md"


def console_blocks() -> list[list[tuple[str, list[str]]]]:
    """Each ```console block as (command, expected output lines); a last line ``...`` cuts the output."""
    blocks = re.findall(r"```console\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    out = []
    for block in blocks:
        steps: list[tuple[str, list[str]]] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
        out.append(steps)
    return out


def run(command: str, env: dict[str, str]) -> tuple[int, str]:
    """Runs ``[echo 'TEXT' |] clabber ARGS`` in process; the exit status and everything printed."""
    stdin = None
    if command.startswith("echo "):
        echo, command = command.split(" | ", 1)
        stdin = shlex.split(echo)[1]
    args = shlex.split(command)
    assert args[0] == "clabber", command
    r = CliRunner().invoke(cli, args[1:], input=stdin, env=env)
    return r.exit_code, r.output  # as a terminal shows it: both streams, in the order printed


def test_the_engine_example_holds():
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4 and result.failed == 0


@pytest.mark.parametrize("steps", console_blocks(), ids=lambda steps: steps[0][0][:40])
def test_the_command_line_examples_print_what_the_readme_shows(steps, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    env = {
        "CLABBER_DB": str(tmp_path / "clabber.db"),
        "CLABBER_CONFIG": str(tmp_path / "none.toml"),
        "CLABBER_LEAGUE_DB": str(tmp_path / "league.db"),
    }
    (tmp_path / "none.toml").write_text("")
    for command, expected in steps:
        status, printed = run(command, env)
        lines = printed.splitlines()
        if expected and expected[-1] == "...":
            assert lines[: len(expected) - 1] == expected[:-1], command
        else:
            assert lines == expected, command
        assert status in (0, 2)


def test_the_readme_has_command_line_examples():
    assert sum(len(b) for b in console_blocks()) >= 6
