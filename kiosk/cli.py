"""The ``clabber`` command: score, sheet and replay hand and game records.

Each subcommand imports only what it needs, so ``clabber score`` starts without Kivy.
A refused record exits with status 2, prints nothing on standard output, and prints one line
per problem on standard error: where in the record, and why.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click

from engine.errors import EntryError

USAGE_ERROR = 2


def _fail(lines: list[str]) -> NoReturn:
    for line in lines:
        click.echo(line, err=True)
    sys.exit(USAGE_ERROR)


def _read(path: str) -> Any:
    """The JSON in a file (``-`` for standard input)."""
    from engine.record import loads

    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as e:
        _fail([f"{path}: cannot read: {e.strerror or e}"])
    return loads(data)


def _run(path: str, work: Callable[[Any], str]) -> None:
    """Reads a record and prints what ``work`` makes of it; refusals become error lines."""
    try:
        out = work(_read(path))
    except EntryError as e:
        _fail([str(p) for p in e.problems])
    except RecursionError:
        _fail(["record: nested too deeply to be a record"])
    click.echo(out, nl=not out.endswith("\n"))


def _dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="clabber-kiosk")
def cli() -> None:
    """Clabber table kiosk: score hands, keep the sheet, replay disputes."""


@cli.command()
@click.argument("file")
def score(file: str) -> None:
    """Score one hand record (clabber-hand/1); FILE or - for standard input."""
    from engine.record import read_hand, score_to_json
    from engine.scoring import score_hand

    def work(obj: Any) -> str:
        rec = read_hand(obj)
        return _dump(score_to_json(rec.hand, score_hand(rec.hand, rec.rules)))

    _run(file, work)


@cli.command()
@click.argument("file")
def sheet(file: str) -> None:
    """The score sheet of a game record (clabber-game/1)."""
    from engine.record import read_game, sheet_to_json

    _run(file, lambda obj: _dump(sheet_to_json(read_game(obj).sheet())))


@cli.command()
@click.argument("file")
def replay(file: str) -> None:
    """Tell a hand trick by trick, with every renege and the cards that were legal."""
    from engine.record import read_hand
    from kiosk.replay import replay_text

    def work(obj: Any) -> str:
        rec = read_hand(obj)
        return replay_text(rec.hand, rec.rules)

    _run(file, work)


def main() -> None:
    """Entry point: never lets a traceback reach the table."""
    try:
        cli.main(prog_name="clabber", standalone_mode=True)
    except Exception as e:
        click.echo(f"clabber: internal error: {type(e).__name__}: {e}", err=True)
        sys.exit(1)
