"""``clabber league join|status|leave|sync``: this kiosk in a league, on the kiosk's own database
(``--kiosk-db``). ``clabber`` merges these with the league server's ``league`` commands where both
are installed (shared/cli.py)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import click

from engine.text import terminal_safe

USAGE_ERROR, TROUBLE = 2, 3


def _fail(line: str, code: int = USAGE_ERROR) -> NoReturn:
    click.echo(terminal_safe(line), err=True)
    sys.exit(code)


@click.group("league")
def league() -> None:
    """This kiosk in a league: join, status, leave, sync (on the kiosk's own database, --kiosk-db)."""


kiosk_db_option = click.option(
    "--kiosk-db",
    metavar="PATH",
    help="The kiosk's database (default: as clabber kiosk finds it: $CLABBER_DB, the config file, the data folder).",
)


@contextmanager
def _kiosk_store(kiosk_db: str | None, *, make: bool) -> Iterator[Any]:
    """The kiosk's store, opened as ``clabber game`` opens it; ``make``: it may be made here."""
    from kiosk.config import ConfigError, load_config
    from kiosk.store import StoreError, StoreTrouble
    from kiosk.table import open_table

    try:
        cfg = load_config({"db": kiosk_db})
    except ConfigError as e:
        _fail(f"kiosk: {e}")
    if not make and not cfg.db.exists():
        _fail(f"kiosk: {cfg.db}: no kiosk database here yet")
    try:
        table, _ = open_table(cfg.db, cfg.backup_dir, cfg.damaged_dir, source="cli", writable=make)
    except StoreTrouble as e:
        _fail(f"kiosk: {e}", TROUBLE)
    except StoreError as e:
        _fail(f"kiosk: {e}")
    try:
        yield table.store
    except StoreTrouble as e:
        _fail(f"kiosk: {e}", TROUBLE)
    except StoreError as e:
        _fail(f"kiosk: {e}")
    finally:
        table.store.close()


@league.command("join")
@click.argument("url")
@click.argument("code")
@kiosk_db_option
def join(url: str, code: str, kiosk_db: str | None) -> None:
    """Join this kiosk to the league at URL with the organiser's one-time CODE."""
    from kiosk.config import ConfigError, load_config
    from kiosk.league_link import LinkRefused, enrolment, keep
    from kiosk.league_link import join as join_league

    try:
        fresh = not load_config({"db": kiosk_db}).db.exists()
    except ConfigError as e:
        _fail(f"kiosk: {e}")
    if fresh:
        # No kiosk database yet: the league answers first, so a refused code makes no empty database.
        try:
            answer = enrolment(None, url, code).exchange()
        except LinkRefused as e:
            _fail(f"join: {e}")
        with _kiosk_store(kiosk_db, make=True) as store:
            joined = keep(store, answer)
    else:
        with _kiosk_store(kiosk_db, make=True) as store:
            try:
                joined = join_league(store, url, code)
            except LinkRefused as e:
                _fail(f"join: {e}")
    venue = joined["venue"]["name"] or f"venue {joined['venue']['id']}"
    click.echo(terminal_safe(f"joined {joined['url']}: kiosk {joined['kiosk']}, {venue}, table {joined['table']}"))


@league.command("leave")
@kiosk_db_option
def leave(kiosk_db: str | None) -> None:
    """Leave the league: its key is forgotten; league games already played stay, and so does the outbox."""
    from kiosk import outbox
    from kiosk.league_link import LinkRefused
    from kiosk.league_link import leave as leave_league

    with _kiosk_store(kiosk_db, make=False) as store:
        try:
            leave_league(store)
        except LinkRefused as e:
            _fail(f"leave: {e}")
        queued = outbox.queued(store)
    click.echo(f"left the league; {queued} events of league games kept, not sent" if queued else "left the league")


@league.command("status")
@kiosk_db_option
@click.option("--json", "as_json", is_flag=True)
def status(kiosk_db: str | None, as_json: bool) -> None:
    """The league this kiosk is in (never its key), the sync worker's state and held games."""
    from kiosk.league_link import status as link_status

    with _kiosk_store(kiosk_db, make=False) as store:
        now = link_status(store)
    if as_json:
        click.echo(json.dumps(now, ensure_ascii=False, indent=1))
        return
    joined, sync = now["league"], now["sync"]
    if joined is None:
        click.echo("not in a league" + (f"; {now['queued']} events of league games kept" if now["queued"] else ""))
        return
    venue = joined["venue"]["name"] or f"venue {joined['venue']['id']}"
    lines = [f"league: {joined['url']} (kiosk {joined['kiosk']}), {venue}, table {joined['table']}"]
    words = [sync.get("state") or "the sync worker has not run yet", f"{now['queued']} events queued"]
    if sync.get("last_delivery"):
        words.append(f"last delivery {sync['last_delivery']}")
    if sync.get("error"):
        words.append(str(sync["error"]))
    if sync.get("next_try"):
        words.append(f"next try {sync['next_try']}")
    lines.append("sync: " + "; ".join(words))
    lines += [f"held: game {h['game']} (meeting {h['meeting']}): {h['why']}" for h in now["held"]]
    for line in lines:
        click.echo(terminal_safe(line))


@league.command("sync")
@kiosk_db_option
def sync(kiosk_db: str | None) -> None:
    """Deliver this kiosk's league games to the league, fetch tonight's meetings and the rulings, until
    stopped (SIGTERM); the systemd unit clabber-sync runs it beside the kiosk."""
    import logging

    from kiosk.sync import run_until_stopped

    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    run_until_stopped(kiosk_db)
