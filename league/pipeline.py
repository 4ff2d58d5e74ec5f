"""Fewer waits for PostgreSQL in a write transaction: psycopg's pipeline mode under SQLAlchemy.

Each statement SQLAlchemy sends waits for its answer, and under load that wait (a round trip, then
the interpreter's lock won back) is most of a statement's time (``./run bench league``). In a
write transaction on PostgreSQL (``Store.write``) the statements go through psycopg's pipeline mode:

- the BEGIN goes with the first statement that waits (psycopg, left to itself, waits for it alone);
- a statement whose answer nobody reads (the league's lock, every write after
  ``Writer.send_the_rest``) does not wait: it goes with the next statement that does;
- reads that do not depend on each other go together (``together``): one wait for all of them;
- any other statement waits for its answer, as it always did.

An error comes back with the first statement that waits after it (at the latest with the commit),
and undoes the transaction as ever. A SQLite file, in the process itself, has no round trips to
save: there, and outside a write, ``together`` reads one statement after another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

T = TypeVar("T")
A = TypeVar("A")
B = TypeVar("B")
C = TypeVar("C")
D = TypeVar("D")

# Each write transaction's pipeline while it lasts, by its driver connection's id (the hooks below are
# given the driver's cursor; a dict's lookup and change are atomic for the threads that share it).
_PIPELINES: dict[int, _Pipeline] = {}


@dataclass(frozen=True)
class Read(Generic[T]):
    """A read that may go with others (``together``): a statement built once, its parameters, and what
    its rows (as dicts) become. Plain columns only (numbers, text, truth values): sent together, the
    rows come from the driver as it reads them, without SQLAlchemy's conversions of a column type."""

    statement: sa.Executable
    params: Mapping[str, Any] | None
    shape: Callable[[list[dict[str, Any]]], T]
    wanted: bool = True  # False: nothing to read (no ids given), the shape of no rows without a statement


@dataclass
class _Pipeline:
    driver: Any  # psycopg.Connection, in pipeline mode
    pipe: Any  # its psycopg.Pipeline
    waits: bool = True  # each statement waits for its answer
    queued: list[Any] | None = None  # ``together``'s cursors, while it sends them
    expected: int = 0


@contextmanager
def transaction(conn: Connection) -> Iterator[None]:
    """A write transaction on ``conn`` (PostgreSQL, the driver in autocommit mode, so that BEGIN and
    COMMIT are ours to send) in pipeline mode. The COMMIT goes with the statements not yet answered,
    and the pipeline is left with it: one round trip (psycopg's own commit, then leaving, take two).
    Left by an error, the pipeline is left first (its own errors then said in psycopg's log only) and
    the caller rolls back."""
    driver = conn.connection.driver_connection
    assert driver is not None
    with ExitStack() as stack:
        p = _Pipeline(driver, stack.enter_context(driver.pipeline()))
        stack.callback(_PIPELINES.pop, id(driver), None)
        driver.execute("BEGIN")  # sent with the first statement that waits
        _PIPELINES[id(driver)] = p
        yield
        driver.execute("COMMIT")
        try:
            stack.close()  # the answers to all that was sent, the COMMIT's among them
        except conn.dialect.loaded_dbapi.Error as e:  # as SQLAlchemy raises the driver's errors
            raise sa.exc.DBAPIError.instance("COMMIT", None, e, conn.dialect.loaded_dbapi.Error) from e


def _of(conn: Connection) -> _Pipeline | None:
    return _PIPELINES.get(id(conn.connection.driver_connection))


def send_the_rest(conn: Connection) -> None:
    """From here on, no statement of the transaction waits: all go with the commit's, one wait for
    all. Only for statements whose rows are not read (a read after it reads no rows and fails).
    Nothing to do without a pipeline (SQLite, or not in a write)."""
    p = _of(conn)
    if p is not None:
        p.waits = False


@contextmanager
def unanswered(conn: Connection) -> Iterator[None]:
    """The statements sent within do not wait (a lock): they go with the next statement that does."""
    p = _of(conn)
    if p is None or not p.waits:
        yield
        return
    p.waits = False
    try:
        yield
    finally:
        p.waits = True


@overload
def together(conn: Connection, a: Read[A], /) -> tuple[A]: ...
@overload
def together(conn: Connection, a: Read[A], b: Read[B], /) -> tuple[A, B]: ...
@overload
def together(conn: Connection, a: Read[A], b: Read[B], c: Read[C], /) -> tuple[A, B, C]: ...
@overload
def together(conn: Connection, a: Read[A], b: Read[B], c: Read[C], d: Read[D], /) -> tuple[A, B, C, D]: ...
def together(conn: Connection, *reads: Read[Any]) -> tuple[Any, ...]:
    """These reads' shaped rows, in order. In a write on PostgreSQL, sent together with whatever waits
    to be sent (the BEGIN, a lock): one round trip for the lot. Each is run in the order given, so a
    read after one that locks rows reads them as they are once locked."""
    sent = [r for r in reads if r.wanted]
    p = _of(conn)
    if p is None or not p.waits or len(sent) < 2:
        answers = [[dict(row._mapping) for row in conn.execute(r.statement, r.params)] for r in sent]
    else:
        p.queued, p.expected = [], len(sent)
        try:
            for r in sent:  # each queued on a cursor of its own (listen's queue), the last waiting for all
                conn.execute(r.statement, r.params)
            cursors = p.queued
        finally:
            p.queued, p.expected = None, 0
        answers = [_rows(cursor) for cursor in cursors]
    rows = iter(answers)
    return tuple(r.shape(next(rows) if r.wanted else []) for r in reads)


def _rows(cursor: Any) -> list[dict[str, Any]]:
    names = [c.name for c in cursor.description]
    with cursor:
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def listen(engine: Engine) -> None:
    """Has ``engine``'s statements (PostgreSQL's) go through a write transaction's pipeline."""

    def queue(cursor: Any, statement: str, parameters: Any, context: Any) -> bool:
        p = _PIPELINES.get(id(cursor.connection))
        if p is None or p.queued is None:
            return False  # SQLAlchemy's own cursor sends it
        # ``together``: a cursor of its own, read once all are answered (SQLAlchemy's, answered later
        # than SQLAlchemy looks at it, would read as no rows).
        mine = p.driver.cursor()
        mine.execute(statement, parameters)
        p.queued.append(mine)
        if len(p.queued) == p.expected:
            p.pipe.sync()  # within SQLAlchemy's execute, so that an error is raised as any other
        return True

    def queue_alone(cursor: Any, statement: str, context: Any) -> bool:
        return queue(cursor, statement, None, context)

    def answered(conn: Connection, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        p = _PIPELINES.get(id(cursor.connection))
        if p is not None and p.waits and p.queued is None:
            p.pipe.sync()  # this statement's answer, with those of the statements that did not wait

    sa.event.listen(engine, "do_execute", queue)
    sa.event.listen(engine, "do_execute_no_params", queue_alone)
    sa.event.listen(engine, "after_cursor_execute", answered)
