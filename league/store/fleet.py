"""Every SQL statement about the kiosks' software: the versions the organiser offers, and what each
kiosk last said of itself (its version and slot, its data partition's free space, its update's
state). Kept as given, never derived: `rebuild` leaves them alone."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from league.store.tables import metadata

update_offers = sa.Table(
    "update_offers",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("version", sa.String(64), nullable=False),
    sa.Column("compatible", sa.String(128), nullable=False),
    sa.Column("size", sa.BigInteger, nullable=False),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("file", sa.Text, nullable=False),  # where the server keeps the bundle
    sa.Column("offered_at", sa.String(40), nullable=False),
    sa.Column("withdrawn_at", sa.String(40), nullable=True),
)
kiosk_reports = sa.Table(
    "kiosk_reports",
    metadata,
    sa.Column("kiosk_id", sa.Integer, sa.ForeignKey("kiosks.id"), primary_key=True, autoincrement=False),
    sa.Column("version", sa.String(64), nullable=True),
    sa.Column("slot", sa.String(8), nullable=True),
    sa.Column("free_bytes", sa.BigInteger, nullable=True),
    sa.Column("last_sync", sa.String(40), nullable=True),  # the kiosk's last delivery the league took
    sa.Column("update_state", sa.String(32), nullable=True),
    sa.Column("update_version", sa.String(64), nullable=True),
    sa.Column("update_percent", sa.Integer, nullable=True),
    sa.Column("update_why", sa.Text, nullable=True),
    sa.Column("reported_at", sa.String(40), nullable=False),  # the league's clock: the kiosk last seen
)


def offer(conn: Connection, row: dict[str, Any]) -> int:
    """A new offer; the one before is withdrawn (one version is offered at a time)."""
    conn.execute(
        sa.update(update_offers).where(update_offers.c.withdrawn_at.is_(None)).values(withdrawn_at=row["offered_at"])
    )
    key = conn.execute(sa.insert(update_offers).values(**row)).inserted_primary_key
    assert key is not None  # an insert has its key
    return int(key[0])


def withdraw(conn: Connection, at: str) -> bool:
    done = conn.execute(sa.update(update_offers).where(update_offers.c.withdrawn_at.is_(None)).values(withdrawn_at=at))
    return bool(done.rowcount)


def current_offer(conn: Connection) -> dict[str, Any] | None:
    q = sa.select(update_offers).where(update_offers.c.withdrawn_at.is_(None)).order_by(update_offers.c.id.desc())
    r = conn.execute(q).first()
    return dict(r._mapping) if r is not None else None


def offer_of(conn: Connection, version: str) -> dict[str, Any] | None:
    """The latest offer of ``version``, withdrawn or not (a kiosk may be fetching it still)."""
    q = sa.select(update_offers).where(update_offers.c.version == version).order_by(update_offers.c.id.desc())
    r = conn.execute(q).first()
    return dict(r._mapping) if r is not None else None


def report(conn: Connection, kiosk: int, row: dict[str, Any]) -> None:
    """What a kiosk said of itself, in place of what it said before."""
    conn.execute(sa.delete(kiosk_reports).where(kiosk_reports.c.kiosk_id == kiosk))
    conn.execute(sa.insert(kiosk_reports).values(kiosk_id=kiosk, **row))


def reports(conn: Connection) -> dict[int, dict[str, Any]]:
    return {r.kiosk_id: dict(r._mapping) for r in conn.execute(sa.select(kiosk_reports))}
