"""The kiosk's part of the ``clabber`` command, mirroring the library as sqlite-utils' command does
(the record commands, ``score``, ``sheet``, ``replay`` and ``solve``, are ``clabber``'s own:
shared/records_cli.py):

- ``game``: the controller's actions on the kiosk's database (new, hand, show, list, undo,
  correct, deal, export, import);
- ``db``: check, rebuild, back up, restore, and the owner's notices; ``pin``: the owner's PIN;
- ``serve`` and ``qr``: the result pages and their QR codes; ``print``: a game's receipt on the
  receipt printer (status 3 when the printer cannot print it now); ``kiosk``: the touchscreen.

Each subcommand imports only what it needs, so ``clabber score`` starts without Kivy.
A refused record exits with status 2, prints nothing on standard output, and prints one line
per problem on standard error: where in the record, and why.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from engine.errors import EntryError
from engine.text import terminal_safe
from kiosk.league_cli import league
from kiosk.updates.cli import update
from shared.records_cli import dump, fail, read_json

TROUBLE = 3  # the database cannot be used now (full, locked, read-only, permissions); nothing was changed

# The kiosk's own libraries (its extra, pyproject.toml): without them this part is not installed here.
NEEDS = ("kivy", "sqlite_utils", "gpiozero", "escpos")

if TYPE_CHECKING:  # each command imports what it needs when it runs
    from kiosk.config import Config
    from kiosk.table import Table
    from shared.game_state import GameState


@click.group()
def commands() -> None:
    """The kiosk's commands, which ``clabber`` mounts (shared/cli.py)."""


# ---- games and the database ------------------------------------------------------------------


class Session:
    """The store and table a command works on, opened on first use."""

    def __init__(self, db: str | None) -> None:
        self.flags = {"db": db}
        self._table: Table | None = None

    def config(self) -> Config:
        from kiosk.config import ConfigError, load_config

        try:
            return load_config(self.flags)
        except ConfigError as e:
            fail([str(e)])

    def table(self, writable: bool = True) -> Table:
        """The controller; ``writable``: the command will save (so a read-only file is refused at once)."""
        if self._table is None:
            from kiosk.table import open_table

            cfg = self.config()
            # A restore's notice goes to standard error through the store's log line.
            self._table, _ = open_table(cfg.db, cfg.backup_dir, cfg.damaged_dir, source="cli", writable=writable)
        return self._table

    def close(self) -> None:
        """Closes the database, if the command opened it."""
        if self._table is not None:
            self._table.store.close()
            self._table = None


def _session(ctx: click.Context, db: str | None) -> Session:
    """The command's session, closed when the command ends."""
    session = Session(db)
    ctx.call_on_close(session.close)
    return session


def _refusals(fn: Callable[..., None]) -> Callable[..., None]:
    """Turns a refused action, a store failure or a bad record into error lines and status 2."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        from kiosk.store import StoreError, StoreTrouble
        from shared.game_state import ActionRefused

        try:
            fn(*args, **kwargs)
        except ActionRefused as e:
            fail(e.problems)
        except StoreTrouble as e:
            fail([str(e)], TROUBLE)
        except (StoreError, EntryError) as e:
            fail([str(e)])

    return wrapper


db_option = click.option(
    "--db", "db", metavar="PATH", envvar="CLABBER_DB", help="The database file (default: in the user's data folder)."
)


@commands.group()
@db_option
@click.pass_context
def game(ctx: click.Context, db: str | None) -> None:
    """Start, enter, correct, list and export games."""
    ctx.obj = _session(ctx, db)


def _game_id(text: str) -> int:
    if not text.isdigit():
        fail([f"game: {text!r} is not a game number (see clabber game list)"])
    return int(text)


def _row_json(state: GameState, number: int) -> str:
    from engine.output import sheet_to_json

    rows = sheet_to_json(state.sheet)["rows"]
    return dump(rows[number - 1])


@game.command("new")
@click.option("--teams", nargs=2, metavar="NS EW", help="The two team names, NS first.")
@click.option("--meeting", type=int, help="One of tonight's league meetings (clabber league status lists them).")
@click.option("--ns", type=click.Choice(["a", "b"]), default="a", show_default=True, help="The meeting's team at NS.")
@click.option("--players", nargs=4, metavar="N E S W", help="Player names by seat.")
@click.option("--first-dealer", metavar="SEAT", help="Who deals first; without it the kiosk deals for the Jacks.")
@click.option("--rules", default="evansville", show_default=True, help="Rules preset (evansville, pagat).")
@click.pass_obj
@_refusals
def game_new(
    session: Session,
    teams: tuple[str, str] | None,
    meeting: int | None,
    ns: str,
    players: tuple[str, ...] | None,
    first_dealer: str | None,
    rules: str,
) -> None:
    """Start a game; prints its number. --teams for a friendly game, or --meeting for the next game of
    one of tonight's league meetings (its teams, players and rules as the league set them). Without
    --first-dealer the kiosk deals for the Jacks and says on standard error who deals first and who
    changes seats (the players' names go with them)."""
    if (teams is None) == (meeting is None):
        raise click.UsageError("give --teams NS EW, or --meeting N for a league game")
    if meeting is not None:
        state = session.table().new_meeting_game(meeting, ns, first_dealer)
    else:
        assert teams is not None
        state = session.table().new_game(list(teams), list(players) if players else None, rules, first_dealer)
    if first_dealer is None and (draw := state.jack_draw) is not None:
        first, second = "NESW"[draw.first], "NESW"[draw.second]
        said = f"the Jack draw: {first} deals first"
        if (change := draw.change()) is not None:
            said += f"; {second} and {'NESW'[change[1]]} change seats"
        click.echo(said, err=True)
    click.echo(state.id)


@game.command("hand")
@click.argument("game_id", metavar="GAME")
@click.argument("file")
@click.pass_obj
@_refusals
def game_hand(session: Session, game_id: str, file: str) -> None:
    """Add a hand (a hand record without format) to a game; prints its sheet row."""
    record = read_json(file)
    if isinstance(record, dict):
        record = {k: v for k, v in record.items() if k not in ("format", "rules")}
    state = session.table().add_hand(_game_id(game_id), record)
    click.echo(_row_json(state, len(state.hands)))


@game.command("list")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 100000))
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line.")
@click.pass_obj
@_refusals
def game_list(session: Session, limit: int, as_json: bool) -> None:
    """The most recent games, newest first."""
    rows = session.table(writable=False).games(limit)
    for r in rows:
        if as_json:
            click.echo(dump(r))
        else:
            winner = f"  winner {r['winner']}" if r["winner"] else ""
            ns, ew = terminal_safe(r["team_ns"]), terminal_safe(r["team_ew"])  # names from imports of old
            click.echo(
                f"{r['id']:>5}  {r['status']:<9} {ns} {r['total_ns']} – {r['total_ew']} {ew}"
                f"  ({r['hands']} hands, dealer {r['dealer']}){winner}  {r['updated_at'][:16]}"
            )


@game.command("show")
@click.argument("game_id", metavar="GAME")
@click.pass_obj
@_refusals
def game_show(session: Session, game_id: str) -> None:
    """A game's sheet as JSON, with its status, teams and whose deal it is."""
    from engine.output import sheet_to_json
    from engine.seats import seat_name

    state = session.table(writable=False).game(_game_id(game_id))
    out = {
        "game": state.id,
        "status": state.status,
        "teams": state.teams,
        "players": state.players,
        "rules": state.rules.to_json(),
        "dealer": seat_name(state.dealer),
        "rules_dealer": seat_name(state.rules_dealer),
        **sheet_to_json(state.sheet),
    }
    out["pending"] = state.pending.record if state.pending else None
    out["draft"] = state.draft
    click.echo(dump(out))


@game.command("undo")
@click.argument("game_id", metavar="GAME")
@click.pass_obj
@_refusals
def game_undo(session: Session, game_id: str) -> None:
    """Take back the game's last action."""
    from engine.seats import seat_name

    state = session.table().undo(_game_id(game_id))
    hands = f"{len(state.hands)} hand{'' if len(state.hands) == 1 else 's'}"
    click.echo(f"undone; {hands} on the sheet, dealer {seat_name(state.dealer)}")


@game.command("correct")
@click.argument("game_id", metavar="GAME")
@click.argument("hand", type=int)
@click.argument("file")
@click.option("--reason", required=True, help="Why the hand is corrected (kept in the log).")
@click.pass_obj
@_refusals
def game_correct(session: Session, game_id: str, hand: int, file: str, reason: str) -> None:
    """Replace hand HAND of a game; the original stays in the log. Asks for the owner's PIN (or
    reads it from CLABBER_PIN)."""
    if file == "-" and PIN_ENV not in os.environ:
        fail([f"correct: the record comes on standard input, so give the owner's PIN in {PIN_ENV}"])
    pin = _secret("Owner's PIN", PIN_ENV)
    record = read_json(file)
    if isinstance(record, dict):
        record = {k: v for k, v in record.items() if k not in ("format", "rules")}
    state = session.table().correct(_game_id(game_id), hand, record, reason, pin)
    click.echo(_row_json(state, hand))


@game.command("deal")
@click.argument("game_id", metavar="GAME")
@click.argument("direction", type=click.Choice(["next", "back"]))
@click.pass_obj
@_refusals
def game_deal(session: Session, game_id: str, direction: str) -> None:
    """Move the deal to the next seat or back."""
    from engine.seats import seat_name

    state = session.table().move_deal(_game_id(game_id), direction)
    click.echo(f"dealer {seat_name(state.dealer)}")


@game.command("export")
@click.argument("game_id", metavar="GAME")
@click.pass_obj
@_refusals
def game_export(session: Session, game_id: str) -> None:
    """Print a game as a clabber-game/1 record."""
    click.echo(dump(session.table(writable=False).export(_game_id(game_id))))


@game.command("import")
@click.argument("file")
@click.pass_obj
@_refusals
def game_import(session: Session, file: str) -> None:
    """Store a clabber-game/1 record as a new game; prints its number."""
    click.echo(session.table().import_game(read_json(file)).id)


@commands.group()
@db_option
@click.pass_context
def db(ctx: click.Context, db: str | None) -> None:
    """Check, rebuild, back up and restore the database."""
    ctx.obj = _session(ctx, db)


@db.command("check")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.pass_obj
@_refusals
def db_check(session: Session, file: str | None) -> None:
    """Integrity check, the derived tables against a rebuild from the log, and every game's log
    folded by the rules; on a snapshot, so the kiosk goes on saving meanwhile. FILE: another
    database file (a backup, a copy) instead of the kiosk's."""
    import tempfile
    from pathlib import Path

    from kiosk.backups import check_file, snapshot
    from kiosk.projection import Projection
    from kiosk.store import Store

    path = Path(file) if file else session.config().db
    if not path.exists():
        fail([f"{path}: no database here yet"])
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        click.echo(
            f"{path}: note: {wal.name} beside it holds {wal.stat().st_size // 1024} KiB of saves not yet in "
            f"the file itself (normal while the kiosk runs); they are checked here, but a copy of "
            f"{path.name} alone would not have them: copy both, or stop the kiosk first",
            err=True,
        )
    derive = Projection()
    with tempfile.TemporaryDirectory(prefix="clabber-check-") as tmp:
        copy = Path(tmp) / "snapshot.db"
        snapshot(path, copy)
        why = check_file(copy)
        if why:
            fail([f"{path}: {why}"])
        store = Store(copy)
        try:
            matches = store.derived_matches(derive)
        finally:
            store.close()
    stuck = derive.stuck
    for e in stuck:
        click.echo(f"{path}: game {e.game} needs the owner's attention: event {e.seq} ({e.kind}): {e.why}")
    if not matches:
        fail([f"{path}: the derived tables differ from the log; run clabber db rebuild"])
    if stuck:
        n = len(stuck)
        click.echo(
            f"{path}: the file is sound; {n} game{'' if n == 1 else 's'} need{'s' if n == 1 else ''} "
            "the owner's attention (set aside; the other games are unaffected)"
        )
    else:
        click.echo(f"{path}: ok")


@db.command("notices")
@click.option("--acknowledge", is_flag=True, help="Mark them read (asks for the owner's PIN when one is set).")
@click.pass_obj
@_refusals
def db_notices(session: Session, acknowledge: bool) -> None:
    """The notices the kiosk shows the owner until acknowledged (a restored backup, what it lost)."""
    import os

    table = session.table(writable=acknowledge)
    for text in table.notices():
        click.echo(text)
    if acknowledge:
        pin_ = None
        if table.has_pin():
            pin_ = os.environ.get("CLABBER_PIN") or click.prompt("Owner's PIN", hide_input=True, err=True)
        n = table.acknowledge(pin_)
        click.echo(f"{n} acknowledged", err=True)


@db.command("rebuild")
@click.pass_obj
@_refusals
def db_rebuild(session: Session) -> None:
    """Rewrite the derived tables (games, hands, drafts) from the event log."""
    from kiosk.projection import Projection

    table = session.table()
    derive = Projection()
    n = table.store.rebuild(derive)
    click.echo(f"rebuilt {n} games from the log")
    for e in derive.stuck:
        click.echo(f"left as it was: {e}", err=True)


@db.command("backup")
@click.option("--to", "folder", metavar="DIR", help="Where to put it (default: the configured backup folder).")
@click.option("--usb", metavar="MOUNT", help="Also copy it onto the USB stick mounted here, when one is.")
@click.pass_obj
@_refusals
def db_backup(session: Session, folder: str | None, usb: str | None) -> None:
    """A consistent copy of the live database into a rotating set of backups."""
    import os
    from pathlib import Path

    from kiosk.backups import back_up
    from kiosk.store import Store

    cfg = session.config()
    if not cfg.db.exists():
        fail([f"{cfg.db}: no database here yet"])
    # Straight from the file, without the start-up checks: a backup never restores or moves
    # anything, and each copy is checked before it joins the set (see kiosk/backups.py).
    store = Store(cfg.db)
    try:
        click.echo(str(back_up(store, Path(folder) if folder else cfg.backup_dir, cfg.backups_keep)))
        if usb:
            if os.path.ismount(usb):
                click.echo(str(back_up(store, Path(usb) / "clabber-backups", cfg.backups_keep)))
            else:
                click.echo(f"no USB stick mounted at {usb}: kept on the Pi only", err=True)
    finally:
        store.close()


@db.command("restore")
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_obj
@_refusals
def db_restore(session: Session, file: str) -> None:
    """Put a backup in place of the database (stop the kiosk first); the replaced file is kept."""
    from pathlib import Path

    from kiosk.recovery import restore

    cfg = session.config()
    moved = restore(cfg.db, Path(file), cfg.damaged_dir)
    click.echo(f"restored {file}" + (f"; the replaced database is kept at {moved}" if moved else ""))


@commands.group()
@db_option
@click.pass_context
def pin(ctx: click.Context, db: str | None) -> None:
    """The owner's PIN, needed for corrections and abandoning a game."""
    ctx.obj = _session(ctx, db)


@pin.command("set")
@click.pass_obj
@_refusals
def pin_set(session: Session) -> None:
    """Set or change the owner's PIN (6 to 12 digits). Asks for it twice, and for the current one
    when a PIN is set; or reads them from CLABBER_NEW_PIN and CLABBER_PIN."""
    from kiosk.pin import hash_seconds, valid_pin
    from kiosk.table import PIN_KEY

    table = session.table()
    old = _secret("Current PIN", PIN_ENV) if table.store.setting(PIN_KEY) is not None else None
    new = _secret("New PIN", NEW_PIN_ENV, confirm=True, check=valid_pin)
    table.set_pin(new, old)
    click.echo(f"PIN set (each try at it takes {hash_seconds():.2f} s on this machine)")


PIN_ENV = "CLABBER_PIN"
NEW_PIN_ENV = "CLABBER_NEW_PIN"


def _secret(prompt: str, env: str, confirm: bool = False, check: Callable[[str], str | None] | None = None) -> str:
    """A PIN from the environment, else typed at a hidden prompt (a line of standard input when
    that is not a terminal): never from the command line, which every user sees in ``ps``."""
    if env in os.environ:
        return os.environ[env]
    if not sys.stdin.isatty():
        line = sys.stdin.readline()
        if not line:
            fail([f"{prompt}: nothing on standard input: type it when asked, or set {env}"])
        return line.rstrip("\r\n")
    while True:
        value = click.prompt(prompt, hide_input=True, confirmation_prompt=confirm, err=True)
        why = check(value) if check else None
        if not why:
            return value
        click.echo(why, err=True)  # asked again at once, rather than typed twice more for nothing


# ---- results on phones ------------------------------------------------------------------------------


@commands.command("serve")
@db_option
@click.option("--host", help="Address to listen on (default: all of this machine's, 0.0.0.0).")
@click.option("--port", type=int, help="Port (default 8080).")
@click.option("--public-url", help="Where phones reach these pages (default: this machine's address).")
def serve_command(db: str | None, host: str | None, port: int | None, public_url: str | None) -> None:
    """Serve the result pages the QR codes open, reading the database read-only."""
    from kiosk.config import ConfigError, load_config

    try:
        cfg = load_config({"db": db, "serve_host": host, "serve_port": port, "public_url": public_url})
    except ConfigError as e:
        fail([str(e)])
    if not cfg.db.exists():
        fail([f"{cfg.db}: no database here yet: start the kiosk first"])
    from kiosk.web import Site, serve
    from shared.http.server import ServeError
    from shared.share import base_url

    base = base_url(cfg.public_url, cfg.serve_port)
    site = Site(cfg.db, base, cfg.viewer_url or f"{base}/view", cfg.table_name, cfg.show_recent)
    click.echo(f"result pages on http://{cfg.serve_host}:{cfg.serve_port}/ (phones: {base}/g/…)", err=True)
    try:
        serve(site, cfg.serve_host, cfg.serve_port)
    except ServeError as e:
        fail([str(e)])


@commands.command("qr")
@db_option
@click.argument("game_id", metavar="GAME")
@click.option("--png", "png", metavar="FILE", help="Write a PNG.")
@click.option("--svg", "svg", metavar="FILE", help="Write an SVG.")
@click.option("--text", "text", is_flag=True, help="Print it in the terminal.")
@click.option("--offline", is_flag=True, help="Encode the link that carries the result itself.")
@click.option("--public-url", help="Where phones reach the result pages.")
@_refusals
def qr_command(
    db: str | None, game_id: str, png: str | None, svg: str | None, text: bool, offline: bool, public_url: str | None
) -> None:
    """The QR code of a game's result, for printing."""
    from shared.share import base_url, qr_png, qr_svg, qr_text, result_of, result_url, viewer_link

    if sum(bool(x) for x in (png, svg, text)) != 1:
        fail(["qr: give exactly one of --png FILE, --svg FILE or --text"])
    session = _session(click.get_current_context(), db)
    session.flags["public_url"] = public_url
    cfg = session.config()
    state = session.table().game(_game_id(game_id))
    base = base_url(cfg.public_url, cfg.serve_port)
    url = (
        viewer_link(cfg.viewer_url or f"{base}/view", result_of(state, cfg.table_name))
        if offline
        else result_url(base, state.token)
    )
    try:
        if png:
            qr_png(url, png)
        elif svg:
            with open(svg, "w") as f:
                f.write(qr_svg(url))
        else:
            click.echo(qr_text(url))
    except OSError as e:
        fail([f"qr: cannot write: {e.strerror or e}"])
    click.echo(url, err=True)


@commands.command("print")
@db_option
@click.argument("game_id", metavar="GAME")
@click.option(
    "--printer-config", metavar="FILE", help="A TOML file whose [printer] table is used instead of the config file's."
)
@click.option("--dummy", "dummy_out", metavar="FILE", help="Write the printer's bytes to FILE instead of printing.")
@click.option("--image", "image_out", metavar="FILE", help="Write a picture of the receipt (PNG) instead of printing.")
@click.option("--reprint", is_flag=True, help="Mark the receipt as a reprint, with the time it is printed.")
@click.option("--public-url", help="Where phones reach the result pages.")
@_refusals
def print_command(
    db: str | None,
    game_id: str,
    printer_config: str | None,
    dummy_out: str | None,
    image_out: str | None,
    reprint: bool,
    public_url: str | None,
) -> None:
    """Print a game's receipt: the sheet, the winner and the result's QR code (ESC/POS)."""
    from kiosk.printer import ReceiptPrinter
    from kiosk.receipt_escpos import receipt_bytes
    from shared.share import base_url

    session = _session(click.get_current_context(), db)
    session.flags["public_url"] = public_url
    cfg = session.config()
    printer = _printer_settings(printer_config) if printer_config else cfg.printer
    if not (dummy_out or image_out or printer.connection != "none"):
        fail(["print: no printer is set up ([printer] in the config file); --dummy FILE writes its bytes instead"])
    state = session.table(writable=False).game(_game_id(game_id))
    receipts = ReceiptPrinter(
        printer,
        base_url=base_url(cfg.public_url, cfg.serve_port),
        bar_name=cfg.bar_name,
        table_name=cfg.table_name,
        state_dir=cfg.db.parent,
    )
    job = receipts.job(state, reprint=reprint)
    if dummy_out or image_out:
        from kiosk.receipt_image import receipt_image

        rcpt = receipts.receipt(job)
        try:
            if dummy_out:
                with open(dummy_out, "wb") as f:
                    f.write(receipt_bytes(rcpt, printer))
            if image_out:
                receipt_image(rcpt, printer.dots).save(image_out, format="PNG")
        except (OSError, ValueError) as e:
            fail([f"print: cannot write: {getattr(e, 'strerror', None) or e}"])
        click.echo(f"game {state.id}: written {' and '.join(f for f in (dummy_out, image_out) if f)}")
        return
    outcome = receipts.print_now(job)
    if not outcome.ok:
        fail([f"print: {outcome.message} (nothing is lost: run it again once the printer is ready)"], TROUBLE)
    click.echo(f"{outcome.message} ({printer.where})")


def _printer_settings(path: str) -> Any:
    """The ``[printer]`` table of a TOML file, checked."""
    import tomllib

    from kiosk.printer_config import PrinterConfigError, printer_config

    try:
        with open(path, "rb") as f:
            table = tomllib.load(f)
    except OSError as e:
        fail([f"{path}: cannot read: {e.strerror or e}"])
    except tomllib.TOMLDecodeError as e:
        fail([f"{path}: not valid TOML: {e}"])
    section = table.get("printer", table)  # the file's [printer] table, or a file of printer settings only
    try:
        if not isinstance(section, dict):
            raise PrinterConfigError("printer: must be a table of settings ([printer])")
        return printer_config(section)
    except PrinterConfigError as e:
        fail([f"{path}: {e}"])


# ---- the kiosk ---------------------------------------------------------------------------------


@commands.command("kiosk")
@db_option
@click.option("--size", metavar="WxH", help="The panel size, e.g. 800x480 or 720x1280.")
@click.option("--rotation", type=click.Choice(["0", "90", "180", "270"]), help="Rotate the screen (degrees).")
@click.option("--fullscreen/--window", default=None, help="Fullscreen (default on the Pi's console) or a window.")
@click.option("--headless", is_flag=True, help="Draw offscreen, with no display (for checks and benchmarks).")
@click.option(
    "--gpio",
    type=click.Choice(["auto", "mock", "off"]),
    help="Dealer buttons and seat lights: the Pi's "
    "pins if present (auto), mock pins with the keyboard and on-screen lights, or none.",
)
@click.option("--exit-at-first-frame", is_flag=True, hidden=True, help="Benchmarks: stop once the sheet is drawn.")
def kiosk_command(
    db: str | None,
    size: str | None,
    rotation: str | None,
    fullscreen: bool | None,
    headless: bool,
    gpio: str | None,
    exit_at_first_frame: bool,
) -> None:
    """Run the score sheet on the touchscreen (a window on a desktop)."""
    from kiosk.config import ConfigError, kiosk_flags, load_config
    from kiosk.store import StoreError
    from kiosk.ui import launch
    from shared.game_state import ActionRefused

    launch.log_to_journal()  # Kivy logs through Python's logging

    try:
        cfg = load_config(kiosk_flags(db=db, size=size, rotation=rotation, fullscreen=fullscreen, gpio=gpio))
        action = launch.run(
            cfg,
            rotation=None if rotation is None else int(rotation),
            headless=headless,
            exit_at_first_frame=exit_at_first_frame,
        )
    except ConfigError as e:
        fail([str(e)])
    except (launch.CannotStart, ActionRefused, StoreError) as e:
        fail([f"kiosk: {e}"])
    launch.after(action)


commands.add_command(league)
commands.add_command(update)
