"""Joining a league and leaving it: the owner's one-time code exchanged for this kiosk's key, kept in
the kiosk's store (kiosk/outbox.py) with the league's address, the venue and the table. What the
owner screen and ``clabber league join|status|leave`` call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kiosk import outbox
from kiosk.store import Store, now_utc


class LinkRefused(Exception):
    """Joining or leaving refused, in the owner's words; nothing was changed."""


@dataclass(frozen=True)
class Enrolment:
    """A one-time code on its way to the league, checked as typed. ``exchange`` only talks to the
    league (it touches no store), so a screen can run it on a thread of its own and ``keep`` the
    answer on its own thread."""

    url: str
    code: str

    def exchange(self, timeout: float = 10.0) -> dict[str, Any]:
        """The league's answer to the code: the link to keep (with its key); LinkRefused with why."""
        # HTTP (urllib, ssl) is loaded only to talk to the league: the screens' start-up never waits on it.
        from kiosk.league_http import Refused, Unreachable, call

        try:
            answer = call(self.url, "POST", "/api/v1/enrol", {"code": self.code}, timeout=timeout)
        except Refused as e:
            raise LinkRefused(f"the league refused the code: {e.why}") from None
        except Unreachable as e:
            raise LinkRefused(str(e)) from None
        try:
            return {
                "url": self.url,
                "key": str(answer["key"]),
                "kiosk": int(answer["kiosk"]),
                "venue": {"id": int(answer["venue"]["id"]), "name": str(answer["venue"]["name"] or "")},
                "table": int(answer["table"]),
                "joined_at": now_utc(),
            }
        except (KeyError, TypeError, ValueError):
            raise LinkRefused(f"{self.url} did not answer as a league server does (is the address right?)") from None


def enrolment(store: Store | None, address: str, code: str) -> Enrolment:
    """The league's address and the organiser's code as typed, checked (nothing is asked yet);
    ``store``: the kiosk's, when it has one yet."""
    from kiosk.league_http import league_url

    if store is not None and outbox.link(store) is not None:
        raise LinkRefused("this kiosk is in a league already: leave it first")
    try:
        url = league_url(address)
    except ValueError as e:
        raise LinkRefused(str(e)) from None
    typed = "".join(c for c in code.upper() if c.isalnum())
    if not typed:
        raise LinkRefused("type the code the organiser gave you")
    return Enrolment(url, typed)


def keep(store: Store, joined: dict[str, Any]) -> dict[str, Any]:
    """Keeps the league's answer to an enrolment: from now on this kiosk is in that league."""
    if outbox.link(store) is not None:
        raise LinkRefused("this kiosk is in a league already: leave it first")
    outbox.set_link(store, joined)
    return public(joined)


def join(store: Store, address: str, code: str, timeout: float = 10.0) -> dict[str, Any]:
    """Enrols this kiosk with the league at ``address`` by the organiser's one-time ``code``."""
    return keep(store, enrolment(store, address, code).exchange(timeout))


def leave(store: Store) -> None:
    """Forgets the league's key; league games already played stay in the store and the outbox."""
    if outbox.link(store) is None:
        raise LinkRefused("this kiosk is not in a league")
    outbox.forget_link(store)


def public(joined: dict[str, Any]) -> dict[str, Any]:
    """The link without its key: what may be shown or printed."""
    return {k: v for k, v in joined.items() if k != "key"}


def status(store: Store) -> dict[str, Any]:
    """The league this kiosk is in (never its key), and the sync worker's last word on it."""
    joined = outbox.link(store)
    return {
        "league": public(joined) if joined else None,
        "queued": outbox.queued(store),
        "queued_games": outbox.queued_games(store),
        "held": outbox.held(store),
        "sync": outbox.sync_state(store),
    }


def game_url(store: Store, game: int) -> str | None:
    """Where the game-over QR code of a league game points: the league's ``/k/{kiosk}/{game}``, which
    leads to the league's page of the game once it has arrived there and says it is on its way until
    then. None for a friendly game, or when the kiosk is not in a league."""
    joined = outbox.link(store)
    if joined is None or outbox.league_game(store, game) is None:
        return None
    return f"{joined['url']}/k/{int(joined['kiosk'])}/{int(game)}"
