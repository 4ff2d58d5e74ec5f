"""``clabber league ...``: the organiser library as commands. Refusals are one line on standard
error with status 2; a database that cannot be used now is status 3; never a traceback."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from engine.text import terminal_safe
from league.organiser.night import NIGHT_ENDS, TIME_ZONE
from league.organiser.season import LeagueRefused

# The league server's own libraries (its extra, pyproject.toml): without them this part is not installed here.
NEEDS = ("sqlalchemy", "alembic", "psycopg", "argon2", "pygal")

USAGE_ERROR, TROUBLE = 2, 3


def _rounds(n: int) -> str:
    return "1 round" if n == 1 else f"{n} rounds"


def _fail(line: str, code: int = USAGE_ERROR) -> NoReturn:
    click.echo(terminal_safe(line), err=True)
    sys.exit(code)


def _organiser(ctx: click.Context) -> Any:
    from league.organiser.actions import Organiser
    from league.store.core import Store, StoreTrouble

    if "organiser" not in ctx.meta:
        try:
            store = Store(ctx.find_root().params.get("db") or ctx.obj)
        except StoreTrouble as e:
            _fail(f"league: {e}", TROUBLE)
        ctx.call_on_close(store.close)
        ctx.meta["organiser"] = Organiser(store)
    return ctx.meta["organiser"]


def _refusals(fn: Callable[..., None]) -> Callable[..., None]:
    """Passes the organiser in; turns refusals and database trouble into one line and a status."""

    @functools.wraps(fn)
    @click.pass_context
    def wrapper(ctx: click.Context, *args: Any, **kwargs: Any) -> None:
        from league.store.core import StoreTrouble

        try:
            fn(_organiser(ctx), *args, **kwargs)
        except LeagueRefused as e:
            _fail(f"league: {e}")
        except StoreTrouble as e:
            _fail(f"league: {e}", TROUBLE)

    return wrapper


@click.group("league")
@click.option("--db", metavar="URL", envvar="CLABBER_LEAGUE_DB", help="A SQLite file or postgresql://… URL.")
@click.pass_context
def league(ctx: click.Context, db: str | None) -> None:
    """The league: seasons, teams, venues, the schedule and the standings."""
    ctx.obj = db


@league.command("create")
@click.argument("name")
@click.option("--time-zone", default=TIME_ZONE, show_default=True, help="Where the league plays (an IANA name).")
@click.option("--night-ends", type=int, default=NIGHT_ENDS, show_default=True, help="The hour a league night ends.")
@_refusals
def league_create(org: Any, name: str, time_zone: str, night_ends: int) -> None:
    """Create a league, with the clock its nights are told by; prints its id."""
    click.echo(org.create_league(name, time_zone, night_ends))


@league.command("list")
@_refusals
def league_list(org: Any) -> None:
    """Leagues, their seasons, divisions and venues, as JSON."""
    with org.store.read() as r:
        out = []
        for lg in r.leagues():
            seasons = [{**s, "divisions": r.divisions(s["id"])} for s in r.seasons(lg["id"])]
            for s in seasons:
                s["settings"] = json.loads(s["settings"])
            out.append({**lg, "seasons": seasons, "venues": r.venues(lg["id"])})
    click.echo(json.dumps(out, ensure_ascii=False, indent=1))


@league.command("season")
@click.argument("league_id", type=int)
@click.argument("name")
@click.option("--games-per-meeting", type=int, default=1, show_default=True)
@click.option("--ranking", type=click.Choice(["games_won", "game_points"]), default="games_won", show_default=True)
@click.option("--tie-breakers", default="game_points,point_difference,head_to_head", show_default=True)
@click.option("--rules", default="evansville", show_default=True, help="A preset name or a JSON object of variants.")
@click.option(
    "--seeding",
    type=click.Choice(["standings", "ratings"]),
    default="standings",
    show_default=True,
    help="The playoffs' seeds: the standings' order, or the qualifiers by their players' ratings.",
)
@_refusals
def season_create(
    org: Any,
    league_id: int,
    name: str,
    games_per_meeting: int,
    ranking: str,
    tie_breakers: str,
    rules: str,
    seeding: str,
) -> None:
    """Create a season (and its first division); prints the season's and the division's ids."""
    rules_value: Any = rules
    if rules.lstrip().startswith("{"):
        try:
            rules_value = json.loads(rules)
        except ValueError as e:
            raise LeagueRefused(f"--rules: not JSON: {e}") from None
    settings = {
        "games_per_meeting": games_per_meeting,
        "ranking": ranking,
        "tie_breakers": [b.strip() for b in tie_breakers.split(",") if b.strip()],
        "rules": rules_value,
        "seeding": seeding,
    }
    season, division = org.create_season(league_id, name, settings)
    click.echo(f"{season} {division}")


@league.command("division")
@click.argument("season_id", type=int)
@click.argument("name")
@_refusals
def division_add(org: Any, season_id: int, name: str) -> None:
    """Add a division to a season; prints its id."""
    click.echo(org.add_division(season_id, name))


@league.command("team")
@click.argument("division_id", type=int)
@click.argument("name")
@click.option("--player", "players", multiple=True, help="Twice: the team's two players.")
@click.option("--sub", "subs", multiple=True, help="A substitute (any number of times).")
@_refusals
def team_add(org: Any, division_id: int, name: str, players: tuple[str, ...], subs: tuple[str, ...]) -> None:
    """Add a team to a division; prints its id."""
    click.echo(org.add_team(division_id, name, list(players), list(subs)))


@league.command("venue")
@click.argument("league_id", type=int)
@click.argument("name")
@click.option("--tables", type=int, default=1, show_default=True)
@_refusals
def venue_add(org: Any, league_id: int, name: str, tables: int) -> None:
    """Add a venue with its tables; prints its id."""
    click.echo(org.add_venue(league_id, name, tables))


@league.command("schedule")
@click.argument("division_id", type=int)
@click.option("--start", help="The first round's date (YYYY-MM-DD); without it, the schedule is shown.")
@click.option("--every", type=int, default=7, show_default=True, help="Days between rounds.")
@click.option("--double", is_flag=True, help="A double round robin: every pair meets twice.")
@click.option("--json", "as_json", is_flag=True)
@_refusals
def schedule(org: Any, division_id: int, start: str | None, every: int, double: bool, as_json: bool) -> None:
    """Make a division's schedule (with --start), or show it."""
    if start is not None:
        click.echo(_rounds(org.make_schedule(division_id, start, every, double)))
        return
    with org.store.read() as r:
        if r.division(division_id) is None:
            raise LeagueRefused(f"there is no division {division_id}")
        names = {t["id"]: t["name"] for t in r.teams(division_id)}
        venues = {}
        for m in r.meetings(division_id):
            if m["venue_id"] is not None and m["venue_id"] not in venues:
                venues[m["venue_id"]] = r.venue(m["venue_id"])["name"]
        ms = r.meetings(division_id)
    if as_json:
        click.echo(json.dumps(ms, ensure_ascii=False, indent=1))
        return
    for m in ms:
        night = m["date"] or m["round_date"]
        if m["team_b"] is None:
            line = f"{names[m['team_a']]}: bye"
        else:
            where = venues[m["venue_id"]] + (f", table {m['table_number']}" if m["table_number"] else "")
            line = f"{names[m['team_a']]} v {names[m['team_b']]} at {where}"
            if m["forfeit_team"] is not None:
                line += f" (forfeited by {names[m['forfeit_team']]}: {m['forfeit_reason']})"
        click.echo(terminal_safe(f"round {m['round']:>2}  {night}  #{m['id']:<4} {line}"))


@league.command("move")
@click.argument("meeting_id", type=int)
@click.option("--date")
@click.option("--venue", type=int)
@click.option("--table", type=int)
@click.option("--reason", required=True)
@_refusals
def move(org: Any, meeting_id: int, date: str | None, venue: int | None, table: int | None, reason: str) -> None:
    """Move a meeting to another night, venue or table."""
    org.move_meeting(meeting_id, date=date, venue=venue, table=table, reason=reason)


@league.command("forfeit")
@click.argument("meeting_id", type=int)
@click.argument("team_id", type=int)
@click.option("--reason", required=True)
@_refusals
def forfeit(org: Any, meeting_id: int, team_id: int, reason: str) -> None:
    """Record that a team forfeits a meeting."""
    org.forfeit(meeting_id, team_id, reason)


def _outcome(text: str) -> str | None:
    return None if text == "abandoned" else text


@league.command("game")
@click.argument("meeting_id", type=int)
@click.argument("points_a", type=int)
@click.argument("points_b", type=int)
@click.argument("outcome", type=click.Choice(["a", "b", "tie", "abandoned"]))
@click.option("--reason", help="Why the game was abandoned (needed for an abandoned game).")
@click.option("--dry-run", is_flag=True, help="Say what the result would do; count nothing.")
@_refusals
def game(
    org: Any, meeting_id: int, points_a: int, points_b: int, outcome: str, reason: str | None, dry_run: bool
) -> None:
    """Record the next game of a meeting: the points of team a and b, and who won (the season's rules
    decide what may be); says what it did to the standings, and prints the game's id."""
    if dry_run:
        click.echo(org.preview_game(meeting_id, points_a, points_b, _outcome(outcome), reason))
        return
    id_, said = org.game_said(meeting_id, points_a, points_b, _outcome(outcome), reason)
    click.echo(said, err=True)
    click.echo(id_)


@league.command("rule")
@click.argument("game_id", type=int)
@click.argument("outcome", type=click.Choice(["a", "b", "tie", "abandoned"]))
@click.option("--reason", required=True)
@_refusals
def rule(org: Any, game_id: int, outcome: str, reason: str) -> None:
    """Rule on a game's result, with a reason."""
    org.rule_game(game_id, _outcome(outcome), reason)


@league.command("standings")
@click.argument("division_id", type=int)
@click.option("--json", "as_json", is_flag=True)
@_refusals
def standings(org: Any, division_id: int, as_json: bool) -> None:
    """The division's standings, as a table or JSON."""
    lines = org.standings(division_id)
    if as_json:
        click.echo(json.dumps([x.to_json() for x in lines], ensure_ascii=False))
        return
    click.echo(
        f"{'pos':>3}  {'team':<24} {'P':>3} {'W':>3} {'L':>3} {'T':>3} {'wins':>5} {'for':>6} {'agst':>6} {'diff':>6}"
    )
    for x in lines:
        click.echo(
            terminal_safe(
                f"{x.position:>3}  {x.name[:24]:<24} {x.played:>3} {x.won:>3} {x.lost:>3} {x.tied:>3} "
                f"{float(x.wins):>5g} {x.points_for:>6} {x.points_against:>6} {x.difference:>+6}"
            )
        )


@league.command("ratings")
@click.argument("league_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="Every player's line as JSON.")
@_refusals
def ratings(org: Any, league_id: int, as_json: bool) -> None:
    """The league's players rated over every counted game, best first: the rating with its range
    (about 95 %), the games rated and won (docs/league-results.md, Ratings)."""
    from league.organiser.ratings import league_ratings

    _, rated = league_ratings(org.store, league_id)
    table = rated.table()
    if as_json:
        fields = ("name", "mu", "sigma", "low", "high", "ordinal", "games", "won")
        out = [{"rank": i + 1, **{k: getattr(x, k) for k in fields}} for i, x in enumerate(table)]
        click.echo(json.dumps(out, ensure_ascii=False))
        return
    if not table:
        click.echo("no player rated yet: the league has no counted game with its players known")
        return
    click.echo(f"{'rank':>4}  {'player':<24} {'rating':>6} {'range':>13} {'games':>5} {'won':>4}")
    for i, x in enumerate(table, 1):
        span = f"{x.low:.1f}–{x.high:.1f}"
        click.echo(terminal_safe(f"{i:>4}  {x.name[:24]:<24} {x.mu:>6.1f} {span:>13} {x.games:>5} {x.won:>4}"))


@league.command("merge")
@click.argument("league_id", type=int)
@click.argument("name")
@click.option("--into", required=True, help="The player NAME is, as the ratings should name them.")
@_refusals
def merge(org: Any, league_id: int, name: str, into: str) -> None:
    """Rate NAME as the player INTO in the league's ratings ("Bob K." typed at a kiosk is Bob)."""
    org.merge_players(league_id, name, into)
    click.echo(terminal_safe(f"{name} is rated as {into} from now on"))


@league.command("playoffs")
@click.argument("division_id", type=int)
@click.option("--teams", type=int, required=True, help="How many of the standings' best teams play (2 to 32).")
@click.option("--start", required=True, help="The first playoff round's date (YYYY-MM-DD).")
@click.option("--every", type=int, default=7, show_default=True, help="Days between rounds.")
@click.option("--anyway", is_flag=True, help="Seed from the standings as they stand, though meetings are unplayed.")
@_refusals
def playoffs(org: Any, division_id: int, teams: int, start: str, every: int, anyway: bool) -> None:
    """Make a division's playoffs: a single-elimination bracket seeded from the standings."""
    click.echo(_rounds(org.make_playoffs(division_id, teams, start, every, anyway=anyway)))


def _side(side: dict[str, Any]) -> str:
    if side["team"] is None:
        return f"the winner of {side['winner_of_label']}"
    return f"({side['seed']}) {side['name']}"


@league.command("bracket")
@click.argument("division_id", type=int)
@click.option("--json", "as_json", is_flag=True)
@_refusals
def bracket(org: Any, division_id: int, as_json: bool) -> None:
    """A division's playoffs: each round's matches, their games and winners, and the champion."""
    view = org.bracket(division_id)
    if as_json:
        click.echo(json.dumps(view, ensure_ascii=False, indent=1))
        return
    for r in view["rounds"]:
        click.echo(f"{r['name']}  {r['date']}")
        for m in r["matches"]:
            line = f"  {m['label']:<16} {m['date']}  {_side(m['a'])} v {_side(m['b'])} at {m['venue']}"
            if m["meeting"] is not None:
                line += f" (meeting {m['meeting']})"
            if m["winner"] is not None:
                line += f": {m['winner']['name']} through"
            click.echo(terminal_safe(line))
        if r["round"] == 1 and view["byes"]:
            click.echo(terminal_safe("  byes to the next round: " + ", ".join(_side(t) for t in view["byes"])))
    if view["champion"] is not None:
        click.echo(terminal_safe(f"champion: {_side(view['champion'])}"))


@league.command("rebuild")
@_refusals
def rebuild(org: Any) -> None:
    """Write every derived table again from the log, and the kiosk games' figures from their events."""
    from league.organiser.figures import rebuild as rebuild_all

    replayed, figured = rebuild_all(org.store)
    click.echo(f"{replayed} events replayed; {figured} kiosk games' figures written")


@league.command("export")
@click.argument("season_id", type=int)
@click.option("--format", "form", type=click.Choice(["csv", "json"]), default="json", show_default=True)
@click.option("--what", type=click.Choice(["standings", "games"]), default="standings", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False), help="A file to write (default: the output).")
@_refusals
def export(org: Any, season_id: int, form: str, what: str, out: str | None) -> None:
    """A season's standings, or its games (kiosk games with their clabber-game/1 records), as CSV or JSON."""
    from league.results.export import export as export_text

    text = export_text(org.store, season_id, what, form)
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        with open(out, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    except OSError as e:
        raise LeagueRefused(f"export: cannot write {out}: {e.strerror or e}") from None
    click.echo(f"{what} of season {season_id} written to {out}", err=True)


# ---- kiosks -------------------------------------------------------------------------------------


def _kiosks(org: Any) -> Any:
    from league.ingest.kiosks import Kiosks

    return Kiosks(org.store)


@league.command("enrol-code")
@click.argument("venue_id", type=int)
@click.argument("table", type=int)
@click.option("--minutes", type=int, default=10, show_default=True, help="How long the code is valid.")
@_refusals
def enrol_code(org: Any, venue_id: int, table: int, minutes: int) -> None:
    """A one-time code for the kiosk at a venue's table (typed on its owner screen)."""
    kiosks = _kiosks(org)
    code = kiosks.make_code(venue_id, table, minutes)
    click.echo(code)
    click.echo(f"valid once, for {minutes} minutes", err=True)
    for live in kiosks.live_at(venue_id, table):
        click.echo(f"kiosk {live} is live at table {table}: the kiosk enrolled with this code replaces it", err=True)


def _fleet(org: Any) -> Any:
    from league.organiser.fleet import Fleet, bundles_folder

    return Fleet(org.store, bundles_folder(org.store))


@league.command("kiosks")
@click.option("--json", "as_json", is_flag=True, help="Every field as JSON.")
@_refusals
def kiosks_list(org: Any, as_json: bool) -> None:
    """Enrolled kiosks (never their keys) with what each last said at its sync: version, slot, last
    seen and last delivery, free space, the update's state, and what to look at (the fleet page's)."""
    from league.organiser.fleet import described

    fleet = _fleet(org)
    kiosks = fleet.kiosks()
    if as_json:
        click.echo(json.dumps(kiosks, ensure_ascii=False, indent=1))
        return
    now = fleet.clock()
    for k in kiosks:
        d = described(k, now)
        version = (d["version"] or "?") + (f" ({d['slot']})" if d["slot"] else "")
        click.echo(
            f"kiosk {d['id']}: {d['where']} · {version} · {d['state']} · seen {k['reported_at'] or 'never'}"
            + (f" · {d['free']} free" if d["free"] else "")
            + (f" · LOOK: {d['trouble']}" if d["trouble"] else "")
        )
    if not kiosks:
        click.echo("no kiosk enrolled", err=True)


@league.group("update")
def update_group() -> None:
    """The version offered to every kiosk (a signed RAUC bundle: docs/deploy.md, "Updates")."""


@update_group.command("offer")
@click.argument("bundle", type=click.Path(dir_okay=False, path_type=Path))
@_refusals
def update_offer(org: Any, bundle: Path) -> None:
    """Offer BUNDLE to every kiosk from its next sync (the offer before is withdrawn)."""
    row = _fleet(org).offer(bundle)
    click.echo(f"version {row['version']} ({row['size'] // 2**20} MB, for {row['compatible']}) offered to every kiosk")


@update_group.command("withdraw")
@_refusals
def update_withdraw(org: Any) -> None:
    """Offer no version any more (kiosks that have it keep it)."""
    click.echo("the offer is withdrawn" if _fleet(org).withdraw() else "no version was offered")


@league.command("revoke")
@click.argument("kiosk_id", type=int)
@_refusals
def revoke(org: Any, kiosk_id: int) -> None:
    """Revoke a kiosk's key: it can push and pull no more until enrolled again."""
    _kiosks(org).revoke(kiosk_id)


@league.command("quarantine")
@_refusals
def quarantine(org: Any) -> None:
    """Pushed events the fold refused, kept aside with why, as JSON."""
    click.echo(json.dumps(_kiosks(org).quarantine(), ensure_ascii=False, indent=1))


@league.command("flags")
@_refusals
def flags(org: Any) -> None:
    """Kiosk games whose result does not count by itself (and why), and re-deliveries that differ
    from what the league holds, as JSON."""
    click.echo(json.dumps(_kiosks(org).flags(), ensure_ascii=False, indent=1))


@league.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=int, default=8090, show_default=True)
@click.option("--secure-cookies", is_flag=True, help="Mark the organiser's cookies Secure (behind a TLS proxy).")
@click.option(
    "--public-url",
    metavar="URL",
    help="Where phones reach this site (e.g. https://league.example.org), for the venue boards' QR codes "
    "(default: the address the board was opened at).",
)
@_refusals
def serve(org: Any, host: str, port: int, secure_cookies: bool, public_url: str | None) -> None:
    """Serve the kiosk API (/api/v1/) and the league's pages under uvicorn."""
    from league.serve import ServeError
    from league.serve import serve as run

    def listening() -> None:
        click.echo(f"league pages on http://{host}:{port}/, kiosk API under /api/v1/ ({org.store.where})", err=True)

    try:
        run(org.store, host, port, secure_cookies, public_url, listening)
    except ServeError as e:
        raise LeagueRefused(str(e)) from None


# ---- this kiosk in a league -------------------------------------------------------------------

PASSWORD_ENV = "CLABBER_LEAGUE_PASSWORD"


@league.group("organiser")
def organiser_group() -> None:
    """The organiser's sign-in to the league's pages."""


@organiser_group.command("set-password")
@_refusals
def set_password(org: Any) -> None:
    """Set the organiser's password: from $CLABBER_LEAGUE_PASSWORD, else asked twice at a prompt (or read
    twice from standard input). Never an argument: those show in the process list and the shell's history.
    Every session ends."""
    import os

    from league.organiser.signin import SignIn

    password = os.environ.get(PASSWORD_ENV)
    if password is None:
        password = click.prompt("New password", hide_input=True, confirmation_prompt=True)
    SignIn(org.store).set_password(password)
    click.echo("password set; every session ended")


@click.group()
def commands() -> None:
    """The league server's commands, which ``clabber`` mounts (shared/cli.py)."""


commands.add_command(league)
