"""The commands the deployment guides tell a bar owner or an organiser to type work as written.

Each ``/opt/clabber/venv/bin/clabber …`` in docs/deploy.md and deploy/README.md is parsed by the real
command line (a wrong option or a command that moved is caught); the PIN command is also run, with
the Pi's paths moved into a temporary folder, and the PIN it sets is the one the kiosk then asks for.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from shared.cli import cli
from tests.helpers import ROOT, clabber_process

GUIDES = [ROOT / "docs" / "deploy.md", ROOT / "deploy" / "README.md"]
TYPED = re.compile(r"/opt/clabber/venv/bin/clabber ([^`\n]*)")


def typed_commands() -> list[tuple[str, str]]:
    """(guide, the arguments after ``clabber``) for every command the guides give to type."""
    found = []
    for guide in GUIDES:
        for args in TYPED.findall(guide.read_text(encoding="utf-8")):
            found.append((guide.relative_to(ROOT).as_posix(), args.split("#")[0].strip()))
    return found


def parse(args: list[str]) -> click.Command:
    """The command ``clabber ARGS`` names, its options and arguments checked, without running it."""
    command: click.Command = cli
    ctx = command.make_context("clabber", list(args))
    while isinstance(command, click.Group):
        rest = [*getattr(ctx, "_protected_args", []), *ctx.args]
        name, sub, rest = command.resolve_command(ctx, rest)
        assert sub is not None, f"no command {name!r}"
        command = sub
        ctx = command.make_context(name or "", rest, parent=ctx)
    return command


def test_the_guides_give_commands_to_type():
    assert len(typed_commands()) >= 5


@pytest.mark.parametrize(("guide", "args"), typed_commands(), ids=lambda v: str(v)[:50])
def test_every_command_in_the_guides_is_one_the_command_line_takes(guide, args):
    try:
        parse(shlex.split(args))
    except click.ClickException as e:
        pytest.fail(f"{guide}: clabber {args}: {e.format_message()}")


@pytest.mark.slow  # the PIN command as processes, its hash at full cost
def test_the_pin_command_as_the_guides_give_it_sets_the_owners_pin(tmp_path: Path):
    commands = [args for _, args in typed_commands() if args.startswith("pin ")]
    assert commands, "the guides give the PIN command"
    for n, args in enumerate(commands):
        folder = tmp_path / f"var-lib-clabber-{n}"
        folder.mkdir()
        argv = shlex.split(args.replace("/var/lib/clabber", str(folder)))
        set_it = clabber_process(*argv, stdin="482613\n")
        assert set_it.returncode == 0 and "PIN set" in set_it.stdout, set_it.stderr
        # Changing it asks for the current one: the PIN just set is the one the kiosk now asks for.
        wrong = clabber_process(*argv, env={"CLABBER_PIN": "111111", "CLABBER_NEW_PIN": "90817263"})
        right = clabber_process(*argv, env={"CLABBER_PIN": "482613", "CLABBER_NEW_PIN": "90817263"})
        assert wrong.returncode != 0 and "wrong PIN" in wrong.stderr
        assert right.returncode == 0, right.stderr
