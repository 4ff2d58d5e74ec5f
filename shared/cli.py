"""The ``clabber`` command: one command for whatever is installed. The kiosk and the league each
register their commands (the entry points in group ``clabber.commands``: a click group each, whose
commands become ``clabber``'s); neither imports the other, and a command group both give
(``league``: the server's commands and the kiosk's own join, status, leave and sync) is merged.
A part that is not installed, or whose libraries are missing (its module's ``NEEDS``: a kiosk-only
or league-only install), is left out and named when its command is asked for. The record
commands (``score``, ``sheet``, ``replay``, ``solve``: the engine alone) are ``clabber``'s own,
in every install (shared/records_cli.py)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from functools import cache
from importlib.metadata import entry_points

import click

from shared import records_cli

GROUP = "clabber.commands"
PARTS = {"kiosk": "clabber-kiosk[kiosk]", "league": "clabber-kiosk[league]"}  # what installs each


@cache
def _part(name: str) -> click.Group | None:
    """The commands one installed part registers, or None when it cannot be loaded here."""
    for point in entry_points(group=GROUP, name=name):
        try:
            needs = getattr(importlib.import_module(point.module), "NEEDS", ())
            # Looked for, not imported: ``clabber score`` does not wait for the league's libraries.
            if not all(importlib.util.find_spec(library) for library in needs):
                return None  # a kiosk-only or league-only install: the other part's libraries are absent
            loaded = point.load()
        except ImportError:
            return None
        return loaded if isinstance(loaded, click.Group) else None
    return None


@cache
def _parts() -> tuple[str, ...]:
    """The parts installed: read once (reading every installed distribution's entry points takes
    milliseconds, and each command asks several times)."""
    return tuple(sorted({p.name for p in entry_points(group=GROUP)}))


class Clabber(click.Group):
    """``clabber``: the commands of every installed part, loaded only when asked for (``clabber score``
    starts without the league, and without Kivy)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = {n for part in _parts() if (group := _part(part)) for n in group.list_commands(ctx)}
        return sorted(names | set(self.commands))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.commands:  # the record commands: no part is loaded for them
            return self.commands[name]
        found: list[click.Command] = []
        for part in _parts():
            group = _part(part)
            command = group.get_command(ctx, name) if group is not None else None
            if command is None:
                continue
            if not isinstance(command, click.Group):
                # A plain command is its part's alone: the parts after it are not loaded (``clabber
                # kiosk`` starts without the league's libraries).
                return found[0] if found else command
            found.append(command)
        if not found:
            return None
        return found[0] if len(found) == 1 else _merged([c for c in found if isinstance(c, click.Group)])

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else None
        if name is not None and not name.startswith("-") and self.get_command(ctx, name) is None:
            if name in PARTS:
                ctx.fail(f"clabber {name}: this machine has not installed it (pip install '{PARTS[name]}')")
            absent = [part for part in _parts() if part in PARTS and _part(part) is None]
            if absent:
                ctx.fail(
                    f"no command {name!r} here: this machine has not installed the {absent[0]}"
                    f" (pip install '{PARTS[absent[0]]}')"
                )
        return super().resolve_command(ctx, args)


def _merged(groups: list[click.Group]) -> click.Group:
    """One group with the commands of several; the options and their handling are those of the one
    that has any (the league server's ``--db``)."""
    groups = sorted(groups, key=lambda g: -len(g.params))
    first = groups[0]
    merged = click.Group(
        first.name,
        commands={n: c for g in reversed(groups) for n, c in g.commands.items()},
        params=first.params,
        callback=first.callback,
        help="\n\n".join(g.help for g in groups if g.help),
        context_settings=first.context_settings,
    )
    return merged


@click.group(cls=Clabber, commands=records_cli.COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="clabber-kiosk")
def cli() -> None:
    """Clabber table kiosk: score hands, keep the sheet, replay disputes; and the league."""


def main() -> None:
    """Entry point: never lets a traceback reach the table."""
    # Whatever the locale, what is written is UTF-8; text that cannot be is written escaped.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")
    try:
        cli.main(prog_name="clabber", standalone_mode=True)
    except Exception as e:
        click.echo(f"clabber: internal error: {type(e).__name__}: {e}", err=True)
        sys.exit(1)
