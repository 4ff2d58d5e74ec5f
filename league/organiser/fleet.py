"""The kiosks' software, the organiser's side: a version offered to every kiosk (a RAUC bundle the
server keeps and hands out), and the fleet as each kiosk last told it at its sync — its version and
slot, when it was last seen and last delivered, its data partition's free space, its update's
state. The league hands a bundle on unchecked: each kiosk checks its signature before it installs."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from league.organiser.season import LeagueRefused
from league.store import fleet as fl
from league.store import kiosks as ks
from league.store.core import Store, default_path, stamp
from shared import update_states as S
from shared.bundle import BundleError, read_bundle, version_key

TEXT_FIELDS = {"version": 64, "slot": 8, "last_sync": 40}
LOW_SPACE = 512 * 2**20  # free bytes on a kiosk's data partition under which the fleet flags it
NOT_SEEN = dt.timedelta(days=2)  # a kiosk silent this long is flagged (a bar closed for a weekend is not)
UPDATE_TEXT = {"state": 32, "version": 64, "why": 500}


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def bundles_folder(store: Store, env: dict[str, str] | None = None) -> Path:
    """Where the server keeps the bundles it offers: ``CLABBER_LEAGUE_UPDATES``, else beside the
    league's SQLite file (or, on PostgreSQL, beside where that file would be)."""
    env = dict(os.environ) if env is None else env
    if env.get("CLABBER_LEAGUE_UPDATES"):
        return Path(env["CLABBER_LEAGUE_UPDATES"])
    database = store.engine.url.database if store.dialect == "sqlite" else None
    base = Path(database).parent if database and database != ":memory:" else default_path(env).parent
    return base / "updates"


class Fleet:
    """Offers and reports over the league's store; bundles are kept in ``folder``."""

    def __init__(self, store: Store, folder: Path, clock: Callable[[], dt.datetime] = _now) -> None:
        self.store = store
        self.folder = folder
        self.clock = clock

    # ---- the organiser's offer ------------------------------------------------------------------------

    def offer(self, bundle: Path) -> dict[str, Any]:
        """Offers ``bundle`` to every kiosk from their next sync (the offer before is withdrawn)."""
        try:
            info = read_bundle(bundle)
        except BundleError as e:
            raise LeagueRefused(f"{bundle}: not an update bundle ({e})") from e
        except OSError as e:
            raise LeagueRefused(f"{bundle}: cannot be read ({e.strerror})") from e
        kept = self.folder / f"clabber-{info.version}.raucb"
        part = kept.with_name(kept.name + ".part")
        digest = hashlib.sha256()
        # A bundle already in the folder (copied there for the page) is renamed, not copied again.
        here = bundle.resolve().parent == self.folder.resolve()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with open(bundle, "rb") as source, open(os.devnull if here else part, "wb") as out:
                while chunk := source.read(1 << 20):
                    digest.update(chunk)
                    out.write(chunk)
            (bundle if here else part).replace(kept)
        except OSError as e:
            part.unlink(missing_ok=True)
            raise LeagueRefused(f"cannot keep the bundle in {self.folder}: {e.strerror or e}") from e
        row = {
            "version": info.version,
            "compatible": info.compatible,
            "size": kept.stat().st_size,
            "sha256": digest.hexdigest(),
            "file": str(kept),
            "offered_at": stamp(self.clock()),
        }
        with self.store.write() as w:
            row["id"] = fl.offer(w.conn, row)
        return row

    def on_hand(self) -> list[dict[str, Any]]:
        """The bundles in the server's folder, newest version first, as the organiser may offer them
        (a file copied there by hand, or one offered before); a file that is not a bundle is listed
        with why, so it is not a mystery."""
        try:
            files = sorted(self.folder.glob("*.raucb"))
        except OSError:
            files = []
        out = []
        for path in files:
            try:
                info = read_bundle(path)
                out.append({"file": path.name, "version": info.version, "compatible": info.compatible,
                            "size": path.stat().st_size, "why": None})  # fmt: skip
            except (BundleError, OSError) as e:
                out.append({"file": path.name, "version": None, "compatible": None, "size": None, "why": str(e)})
        return sorted(out, key=lambda b: _version_order(b["version"]), reverse=True)

    def offer_on_hand(self, name: str) -> dict[str, Any]:
        """Offers a bundle of the server's folder, named as ``on_hand`` lists it."""
        if name not in {b["file"] for b in self.on_hand() if b["version"]}:
            raise LeagueRefused(f"{name!r}: no such bundle in {self.folder}")
        return self.offer(self.folder / name)

    def withdraw(self) -> bool:
        """No version is offered any more (kiosks fetching one may finish)."""
        with self.store.write() as w:
            return fl.withdraw(w.conn, stamp(self.clock()))

    def current(self) -> dict[str, Any] | None:
        with self.store.read() as r:
            return fl.current_offer(r.conn)

    # ---- the kiosk's side -------------------------------------------------------------------------------

    def offer_for_kiosk(self) -> dict[str, Any]:
        """The answer to a kiosk asking what is offered: the version, its size, its SHA-256 and where
        to fetch it (a path on this server)."""
        row = self.current()
        if row is None:
            return {"offer": None}
        keys = ("version", "compatible", "size", "sha256")
        return {"offer": {**{k: row[k] for k in keys}, "path": f"/api/v1/update/{row['version']}.raucb"}}

    def bundle(self, version: str) -> Path | None:
        """The kept file of an offered ``version`` (withdrawn ones too: a kiosk may be resuming)."""
        with self.store.read() as r:
            row = fl.offer_of(r.conn, version)
        path = Path(row["file"]) if row is not None else None
        return path if path is not None and path.is_file() else None

    def report(self, kiosk: int, body: Any) -> None:
        """What a kiosk says of itself at its sync; 422 (LeagueRefused) for anything malformed."""
        if not isinstance(body, dict):
            raise LeagueRefused("a kiosk's report is a JSON object")
        row: dict[str, Any] = {}
        for name, most in TEXT_FIELDS.items():
            row[name] = _text(body.get(name), name, most)
        free = body.get("free_bytes")
        if free is not None and (isinstance(free, bool) or not isinstance(free, int) or free < 0):
            raise LeagueRefused("free_bytes: a count of bytes")
        row["free_bytes"] = free
        update = body.get("update") or {}
        if not isinstance(update, dict):
            raise LeagueRefused("update: an object")
        for name, most in UPDATE_TEXT.items():
            row[f"update_{name}"] = _text(update.get(name), f"update.{name}", most)
        if row["update_state"] is not None and row["update_state"] not in S.STATES:
            raise LeagueRefused(f"update.state: one of {', '.join(S.STATES)}")
        percent = update.get("percent")
        if percent is not None and (
            isinstance(percent, bool) or not isinstance(percent, int) or not 0 <= percent <= 100
        ):
            raise LeagueRefused("update.percent: 0 to 100")
        row["update_percent"] = percent
        row["reported_at"] = stamp(self.clock())
        with self.store.write() as w:
            fl.report(w.conn, kiosk, row)

    # ---- the fleet ----------------------------------------------------------------------------------------

    def kiosks(self) -> list[dict[str, Any]]:
        """Every kiosk ever enrolled (revoked ones with when), with what it last said of itself (None
        before it did)."""
        with self.store.read() as r:
            enrolled = ks.all_kiosks(r.conn)
            said = fl.reports(r.conn)
            venues = {v: row["name"] if (row := r.venue(v)) else None for v in {k["venue_id"] for k in enrolled}}
        keys = ("version", "slot", "free_bytes", "last_sync", "reported_at")
        out = []
        for k in enrolled:
            s = said.get(k["id"], {})
            update = {n: s.get(f"update_{n}") for n in ("state", "version", "percent", "why")} if s else None
            out.append({**k, "venue": venues.get(k["venue_id"]), **{n: s.get(n) for n in keys}, "update": update})
        return out


def _version_order(version: str | None) -> tuple[int, ...]:
    """Newest first in the folder's list; a file that is not a bundle (or has no usable version) last."""
    try:
        return version_key(version) if version else (-1,)
    except ValueError:
        return (-1,)


def update_words(update: dict[str, Any] | None) -> str:
    """A kiosk's update as the fleet says it: "downloading 0.2.0: 42 %", "rolled back from 0.2.0: why"."""
    if not update or not update.get("state"):
        return "no report yet"
    state, version, why = update["state"], update.get("version") or "", update.get("why") or ""
    percent = f": {update.get('percent') or 0} %"
    words = {
        S.OFFERED: f"{version} offered",
        S.DOWNLOADING: f"downloading {version}{percent}",
        S.DOWNLOADED: f"{version} downloaded: installed between games",
        S.INSTALLING: f"writing {version}{percent}",
        S.INSTALLED: f"{version} installed: restarts into it between games",
        S.TRYING: f"trying {version}",
        S.COMMITTED: f"{version} kept: it proved itself",
        S.ROLLED_BACK: f"rolled back from {version}",
        S.REFUSED: f"refused {version}",
    }.get(state, str(state))
    return f"{words}: {why}" if why and state in (S.ROLLED_BACK, S.REFUSED, S.DOWNLOADING) else words


def described(kiosk: dict[str, Any], now: dt.datetime) -> dict[str, Any]:
    """A kiosk of ``Fleet.kiosks`` in the words the Fleet page and ``clabber league kiosks`` both say."""
    return {
        "id": kiosk["id"],
        "where": f"{kiosk['venue'] or 'venue ' + str(kiosk['venue_id'])}, table {kiosk['table_number']}",
        "version": kiosk["version"] or "",
        "slot": kiosk["slot"] or "",
        "state": "revoked" if kiosk["revoked_at"] else update_words(kiosk["update"]),
        "free": size_words(kiosk["free_bytes"]),
        "trouble": trouble(kiosk, now),
        "revoked": bool(kiosk["revoked_at"]),
    }


def size_words(free: int | None) -> str:
    """Bytes as the fleet shows them: "1.4 GB", "830 MB"; "" when unknown."""
    if free is None:
        return ""
    return f"{free / 2**30:.1f} GB" if free >= 2**30 else f"{free // 2**20} MB"


def trouble(kiosk: dict[str, Any], now: dt.datetime) -> str:
    """What the organiser should look at on this kiosk ("" when nothing): silent, short of room,
    rolled back or refusing."""
    if kiosk.get("revoked_at"):
        return ""
    seen = kiosk.get("reported_at")
    if seen and now - dt.datetime.fromisoformat(seen) > NOT_SEEN:
        return "not seen for " + _days(now - dt.datetime.fromisoformat(seen))
    free = kiosk.get("free_bytes")
    if free is not None and free < LOW_SPACE:
        return "short of room for an update"
    state = (kiosk.get("update") or {}).get("state")
    return {S.ROLLED_BACK: "rolled back", S.REFUSED: "refused the update"}.get(str(state), "")


def _days(gone: dt.timedelta) -> str:
    return f"{gone.days} days" if gone.days >= 2 else f"{int(gone.total_seconds() // 3600)} hours"


def _text(value: Any, name: str, most: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > most:
        raise LeagueRefused(f"{name}: text of at most {most} characters")
    return value
