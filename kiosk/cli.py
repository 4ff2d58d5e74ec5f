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
MOST_PROBLEMS = 50  # a refusal lists this many problems, then says how many more


def _fail(lines: list[str]) -> NoReturn:
    for line in lines[:MOST_PROBLEMS]:
        click.echo(one_line(line), err=True)
    if len(lines) > MOST_PROBLEMS:
        click.echo(f"... and {len(lines) - MOST_PROBLEMS} more", err=True)
    sys.exit(USAGE_ERROR)


def one_line(text: str) -> str:
    """Text for a terminal: control characters (a newline, an escape sequence) shown escaped."""
    return "".join(c if c.isprintable() or c == " " else ascii(c)[1:-1] for c in text)


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


# ---- games and the database ------------------------------------------------------------------


class Session:
    """The store and table a command works on, opened on first use."""

    def __init__(self, db: str | None) -> None:
        self.flags = {"db": db}
        self._table: Any = None

    def config(self) -> Any:
        from kiosk.config import ConfigError, load_config

        try:
            return load_config(self.flags)
        except ConfigError as e:
            _fail([str(e)])

    def table(self) -> Any:
        if self._table is None:
            from kiosk.store import open_store
            from kiosk.table import Table

            cfg = self.config()
            store, report = open_store(cfg.db, cfg.backup_dir, cfg.damaged_dir)
            if report.notice:
                click.echo(report.notice, err=True)
            self._table = Table(store, source="cli")
        return self._table


def _refusals(fn: Callable[..., None]) -> Callable[..., None]:
    """Turns a refused action, a store failure or a bad record into error lines and status 2."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        from kiosk.game_state import ActionRefused
        from kiosk.store import StoreError

        try:
            fn(*args, **kwargs)
        except ActionRefused as e:
            _fail(e.problems)
        except (StoreError, EntryError) as e:
            _fail([str(e)])

    return wrapper


db_option = click.option(
    "--db", "db", metavar="PATH", envvar="CLABBER_DB", help="The database file (default: in the user's data folder)."
)


@cli.group()
@db_option
@click.pass_context
def game(ctx: click.Context, db: str | None) -> None:
    """Start, enter, correct, list and export games."""
    ctx.obj = Session(db)


def _game_id(text: str) -> int:
    if not text.isdigit():
        _fail([f"game: {text!r} is not a game number (see clabber game list)"])
    return int(text)


def _row_json(state: Any, number: int) -> str:
    from engine.record import sheet_to_json

    rows = sheet_to_json(state.sheet)["rows"]
    return _dump(rows[number - 1])


@game.command("new")
@click.option("--teams", nargs=2, required=True, metavar="NS EW", help="The two team names, NS first.")
@click.option("--players", nargs=4, metavar="N E S W", help="Player names by seat.")
@click.option("--first-dealer", metavar="SEAT", help="Who deals first; without it the kiosk deals for the Jacks.")
@click.option("--rules", default="evansville", show_default=True, help="Rules preset (evansville, pagat).")
@click.pass_obj
@_refusals
def game_new(session: Session, teams: tuple[str, str], players: tuple[str, ...] | None, first_dealer: str | None,
             rules: str) -> None:  # fmt: skip
    """Start a game; prints its number."""
    state = session.table().new_game(list(teams), list(players) if players else None, rules, first_dealer)
    click.echo(state.id)


@game.command("hand")
@click.argument("game_id", metavar="GAME")
@click.argument("file")
@click.pass_obj
@_refusals
def game_hand(session: Session, game_id: str, file: str) -> None:
    """Add a hand (a hand record without format) to a game; prints its sheet row."""
    record = _read(file)
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
    rows = session.table().games(limit)
    for r in rows:
        if as_json:
            click.echo(_dump(r))
        else:
            winner = f"  winner {r['winner']}" if r["winner"] else ""
            click.echo(
                f"{r['id']:>5}  {r['status']:<9} {r['team_ns']} {r['total_ns']} – {r['total_ew']} {r['team_ew']}"
                f"  ({r['hands']} hands, dealer {r['dealer']}){winner}  {r['updated_at'][:16]}"
            )


@game.command("show")
@click.argument("game_id", metavar="GAME")
@click.pass_obj
@_refusals
def game_show(session: Session, game_id: str) -> None:
    """A game's sheet as JSON, with its status, teams and whose deal it is."""
    from engine.record import sheet_to_json
    from engine.seats import seat_name

    state = session.table().game(_game_id(game_id))
    out = {
        "game": state.id, "status": state.status, "teams": state.teams, "players": state.players,
        "rules": state.rules.to_json(), "dealer": seat_name(state.dealer),
        "rules_dealer": seat_name(state.rules_dealer), **sheet_to_json(state.sheet),
    }  # fmt: skip
    out["pending"] = state.pending.record if state.pending else None
    out["draft"] = state.draft
    click.echo(_dump(out))


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
@click.option("--pin", required=True, help="The owner's PIN.")
@click.pass_obj
@_refusals
def game_correct(session: Session, game_id: str, hand: int, file: str, reason: str, pin: str) -> None:
    """Replace hand HAND of a game; the original stays in the log."""
    record = _read(file)
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
    click.echo(_dump(session.table().export(_game_id(game_id))))


@game.command("import")
@click.argument("file")
@click.pass_obj
@_refusals
def game_import(session: Session, file: str) -> None:
    """Store a clabber-game/1 record as a new game; prints its number."""
    click.echo(session.table().import_game(_read(file)).id)


@cli.group()
@db_option
@click.pass_context
def db(ctx: click.Context, db: str | None) -> None:
    """Check, rebuild, back up and restore the database."""
    ctx.obj = Session(db)


@db.command("check")
@click.pass_obj
@_refusals
def db_check(session: Session) -> None:
    """Integrity check, and the derived tables against a rebuild from the log."""
    from kiosk.store import Store, check_file

    cfg = session.config()
    if not cfg.db.exists():
        _fail([f"{cfg.db}: no database here yet"])
    why = check_file(cfg.db, live=True)
    if why:
        _fail([f"{cfg.db}: {why}"])
    from kiosk.game_state import GameState

    store = Store(cfg.db)
    if not store.derived_matches(lambda log: GameState.from_events(log).rows()):
        _fail([f"{cfg.db}: the derived tables differ from the log; run clabber db rebuild"])
    click.echo(f"{cfg.db}: ok")


@db.command("rebuild")
@click.pass_obj
@_refusals
def db_rebuild(session: Session) -> None:
    """Rewrite the derived tables (games, hands, drafts) from the event log."""
    from kiosk.game_state import GameState

    table = session.table()
    n = table.store.rebuild(lambda log: GameState.from_events(log).rows())
    click.echo(f"rebuilt {n} games from the log")


@db.command("backup")
@click.option("--to", "folder", metavar="DIR", help="Where to put it (default: the configured backup folder).")
@click.option("--usb", metavar="MOUNT", help="Also copy it onto the USB stick mounted here, when one is.")
@click.pass_obj
@_refusals
def db_backup(session: Session, folder: str | None, usb: str | None) -> None:
    """A consistent copy of the live database into a rotating set of backups."""
    import os
    from pathlib import Path

    cfg = session.config()
    store = session.table().store
    click.echo(str(store.backup(Path(folder) if folder else cfg.backup_dir, cfg.backups_keep)))
    if usb:
        if os.path.ismount(usb):
            click.echo(str(store.backup(Path(usb) / "clabber-backups", cfg.backups_keep)))
        else:
            click.echo(f"no USB stick mounted at {usb}: kept on the Pi only", err=True)


@db.command("restore")
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_obj
@_refusals
def db_restore(session: Session, file: str) -> None:
    """Put a backup in place of the database (stop the kiosk first); the replaced file is kept."""
    from pathlib import Path

    from kiosk.store import restore

    cfg = session.config()
    moved = restore(cfg.db, Path(file), cfg.damaged_dir)
    click.echo(f"restored {file}" + (f"; the replaced database is kept at {moved}" if moved else ""))


@cli.group()
@db_option
@click.pass_context
def pin(ctx: click.Context, db: str | None) -> None:
    """The owner's PIN, needed for corrections and abandoning a game."""
    ctx.obj = Session(db)


@pin.command("set")
@click.option("--pin", "new", prompt="New PIN", hide_input=True, confirmation_prompt=True, help="4 to 8 digits.")
@click.option("--old-pin", default=None, help="The current PIN, when one is set.")
@click.pass_obj
@_refusals
def pin_set(session: Session, new: str, old_pin: str | None) -> None:
    """Set or change the owner's PIN."""
    session.table().set_pin(new, old_pin)
    click.echo("PIN set")


# ---- results on phones ------------------------------------------------------------------------------


@cli.command("serve")
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
        _fail([str(e)])
    if not cfg.db.exists():
        _fail([f"{cfg.db}: no database here yet: start the kiosk first"])
    import uvicorn

    from kiosk.share import base_url
    from kiosk.web import Site, create_app

    base = base_url(cfg.public_url, cfg.serve_port)
    site = Site(cfg.db, base, cfg.viewer_url or f"{base}/view", cfg.table_name, cfg.show_recent)
    click.echo(f"result pages on http://{cfg.serve_host}:{cfg.serve_port}/ (phones: {base}/g/…)", err=True)
    uvicorn.run(create_app(site), host=cfg.serve_host, port=cfg.serve_port, log_level="warning", access_log=False)


@cli.command("qr")
@db_option
@click.argument("game_id", metavar="GAME")
@click.option("--png", "png", metavar="FILE", help="Write a PNG.")
@click.option("--svg", "svg", metavar="FILE", help="Write an SVG.")
@click.option("--text", "text", is_flag=True, help="Print it in the terminal.")
@click.option("--offline", is_flag=True, help="Encode the link that carries the result itself.")
@click.option("--public-url", help="Where phones reach the result pages.")
@_refusals
def qr_command(db: str | None, game_id: str, png: str | None, svg: str | None, text: bool, offline: bool,
               public_url: str | None) -> None:  # fmt: skip
    """The QR code of a game's result, for printing."""
    from kiosk.share import base_url, qr_png, qr_svg, qr_text, result_of, result_url, viewer_link

    if sum(bool(x) for x in (png, svg, text)) != 1:
        _fail(["qr: give exactly one of --png FILE, --svg FILE or --text"])
    session = Session(db)
    session.flags["public_url"] = public_url
    cfg = session.config()
    state = session.table().game(_game_id(game_id))
    base = base_url(cfg.public_url, cfg.serve_port)
    url = viewer_link(cfg.viewer_url or f"{base}/view", result_of(state, cfg.table_name)) if offline else \
        result_url(base, state.token)  # fmt: skip
    try:
        if png:
            qr_png(url, png)
        elif svg:
            with open(svg, "w") as f:
                f.write(qr_svg(url))
        else:
            click.echo(qr_text(url))
    except OSError as e:
        _fail([f"qr: cannot write: {e.strerror or e}"])
    click.echo(url, err=True)


# ---- the kiosk ---------------------------------------------------------------------------------


def _on_console() -> bool:
    """No desktop session: the Pi's console, where SDL draws straight to the display (KMS)."""
    import os

    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


@cli.command("kiosk")
@db_option
@click.option("--size", metavar="WxH", help="The panel size, e.g. 800x480 or 720x1280.")
@click.option("--rotation", type=click.Choice(["0", "90", "180", "270"]), help="Rotate the screen (degrees).")
@click.option("--fullscreen/--window", default=None, help="Fullscreen (default on the Pi's console) or a window.")
@click.option("--headless", is_flag=True, help="Draw offscreen, with no display (for checks and benchmarks).")
@click.option("--gpio", type=click.Choice(["auto", "mock", "off"]), help="Dealer buttons and seat lights: the Pi's "
              "pins if present (auto), mock pins with the keyboard and on-screen lights, or none.")  # fmt: skip
@click.option("--exit-at-first-frame", is_flag=True, hidden=True, help="Benchmarks: stop once the sheet is drawn.")
def kiosk_command(db: str | None, size: str | None, rotation: str | None, fullscreen: bool | None, headless: bool,
                  gpio: str | None, exit_at_first_frame: bool) -> None:  # fmt: skip
    """Run the score sheet on the touchscreen (a window on a desktop)."""
    import logging
    import os
    from pathlib import Path

    from kiosk.config import ConfigError, load_config
    from kiosk.game_state import ActionRefused

    # Kivy logs through Python's logging: one line each, to standard error (the journal on a Pi).
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    from kiosk.store import StoreError, open_store

    flags: dict[str, Any] = {"db": db, "rotation": rotation, "gpio": gpio}
    if size:
        w, _, h = size.lower().partition("x")
        flags.update(width=w, height=h)
    if fullscreen is not None:
        flags["fullscreen"] = fullscreen
    try:
        cfg = load_config(flags)
    except ConfigError as e:
        _fail([str(e)])
    if not headless and _on_console() and not any(Path("/dev/dri").glob("card*")):
        _fail(["kiosk: no display here (no desktop session and no /dev/dri): run it on a desktop, on the Pi, "
               "or with --headless"])  # fmt: skip
    try:
        store, report = open_store(cfg.db, cfg.backup_dir, cfg.damaged_dir)
    except StoreError as e:
        _fail([str(e)])
    # The owner's choices on the screen (rotation, dimming) win over the file's defaults.
    rotation_now = int(store.setting("rotation") or cfg.rotation) if rotation is None else int(rotation)
    dim_after = int(store.setting("dim_after") or cfg.dim_after)
    console = _on_console()
    from kiosk.ui.boot import Display, configure

    display = Display(
        width=cfg.width, height=cfg.height, rotation=rotation_now, headless=headless,
        fullscreen=(cfg.fullscreen == "yes" or (cfg.fullscreen == "auto" and console)) and not headless,
        touch=cfg.touch == "yes" or (cfg.touch == "auto" and console and not headless),
    )  # fmt: skip
    configure(display, kivy_home=cfg.db.parent / "kivy")
    from kiosk.share import base_url
    from kiosk.table import Table
    from kiosk.ui.app import KioskApp

    app = KioskApp(Table(store, source="screen"), report.notice, dim_after=dim_after, backup_dir=cfg.backup_dir,
                   backups_keep=cfg.backups_keep, exit_at_first_frame=exit_at_first_frame, gpio=cfg.gpio,
                   state_dir=cfg.db.parent, public_url=base_url(cfg.public_url, cfg.serve_port),
                   px_per_mm=cfg.px_per_mm or None, panel=(cfg.width, cfg.height))  # fmt: skip
    try:
        app.run()
    except (ActionRefused, StoreError) as e:
        _fail([f"kiosk: {e}"])
    finally:
        store.close()
    if app.exit_action == "restart":
        os.execv(sys.executable, [sys.executable, "-m", "kiosk", *sys.argv[1:]])
    if app.exit_action == "shutdown" and os.environ.get("INVOCATION_ID"):  # running as the systemd service
        os.execvp("systemctl", ["systemctl", "poweroff"])


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
