"""The receipt printer (ESC/POS, through python-escpos): a game's state in, bytes to the printer out.

A receipt is laid out (``kiosk.receipt``), turned into the printer's bytes in one piece, and sent
in one write, so a printer that fails mid-way is simply sent the whole receipt again. Printing runs
on a thread of its own: the screen hands a game over and goes on; the outcome comes back through
``post`` (the kiosk's main thread), in the owner's words, with the job to retry. The game is in
the store whatever the printer does: a receipt is only ever a copy.

USB printers are reached through the kernel's printer driver (``/dev/usb/lp0``, group lp), not
through raw USB access, which would open every USB device on the Pi to the kiosk; network printers
on their raw port (9100), serial ones on their port.
"""

from __future__ import annotations

import logging
import os
import queue
import select
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from kiosk.printer_config import PrinterConfig
from kiosk.receipt import GameFacts, Receipt, facts_of
from kiosk.receipt_escpos import load_escpos, receipt_bytes, receipt_of
from shared.game_state import FINISHED, OVER

log = logging.getLogger("clabber.printer")

STATUS_WAIT = 1.0  # seconds a printer has to answer a status query (one that never does costs this twice a receipt)
SYS_USB_PRINTERS = Path("/sys/class/usbmisc")
DEV_USB = Path("/dev/usb")

Post = Callable[[Callable[[], None]], None]  # runs a function on the kiosk's main thread


def run_now(fn: Callable[[], None]) -> None:
    """``post`` for the command line and tests: the outcome is reported on the printing thread."""
    fn()


class PrinterFault(Exception):
    """Printing failed; the message is in the owner's words."""


# ---- reaching the printer ---------------------------------------------------------------------------


def usb_printer_node(usb_id: str = "", sys_dir: Path | None = None, dev_dir: Path | None = None) -> Path | None:
    """The device node of the USB printer with this vendor:product id (any USB printer when
    empty), from what the kernel's printer driver lists in sysfs; None when none is plugged in."""
    dev_dir = dev_dir or DEV_USB
    for lp in sorted((sys_dir or SYS_USB_PRINTERS).glob("lp*")):
        try:
            device = (lp / "device").resolve().parent  # the printer's interface, then the printer
            found = f"{(device / 'idVendor').read_text().strip()}:{(device / 'idProduct').read_text().strip()}"
        except OSError:
            continue
        if not usb_id or found.lower() == usb_id.lower():
            return dev_dir / lp.name
    return None


def _escpos_classes() -> tuple[Any, Any, Any]:
    """python-escpos's printer classes, each told to wait for a status reply only briefly."""
    from escpos.escpos import Escpos
    from escpos.exceptions import DeviceNotFoundError
    from escpos.printer import Network, Serial

    class DevicePrinter(Escpos):
        """A printer behind a device node (the kernel's USB printer driver), with timeouts."""

        def __init__(self, path: str, timeout: float, **kw: Any) -> None:
            super().__init__(**kw)
            self.path, self.timeout, self._fd = path, timeout, -1

        def open(self) -> None:
            try:
                self._fd = os.open(self.path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
            except OSError as e:
                raise DeviceNotFoundError(f"{self.path}: {e.strerror}") from None
            self.device = self._fd

        def _raw(self, msg: bytes) -> None:
            view = memoryview(msg)
            while view:
                if not _ready(self._fd, select.POLLOUT, self.timeout):
                    raise TimeoutError(f"{self.path} took nothing for {self.timeout:g} s")
                try:
                    view = view[os.write(self._fd, view) :]
                except BlockingIOError:
                    continue

        def _read(self) -> bytes:
            if not _ready(self._fd, select.POLLIN, STATUS_WAIT):
                return b""
            try:
                return os.read(self._fd, 16)
            except (BlockingIOError, OSError):
                return b""  # a printer that cannot answer (one-way)

        def close(self) -> None:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1
            self._device = False

    class NetworkPrinter(Network):
        def _read(self) -> bytes:
            self.device.settimeout(STATUS_WAIT)
            try:
                return bytes(self.device.recv(16))
            except TimeoutError:
                return b""
            finally:
                self.device.settimeout(self.timeout)

    class SerialPrinter(Serial):
        def open(self, raise_not_found: bool = True) -> None:
            super().open(raise_not_found)
            if self.device is not None:
                self.device.write_timeout = self.timeout  # pyserial would wait for ever on a stopped printer

        def _read(self) -> bytes:
            self.device.timeout = STATUS_WAIT
            try:
                return bytes(self.device.read(16))
            finally:
                self.device.timeout = self.timeout

    return DevicePrinter, NetworkPrinter, SerialPrinter


def _ready(fd: int, event: int, seconds: float) -> bool:
    """Whether a device is ready to be written (POLLOUT) or read (POLLIN) within ``seconds``."""
    poller = select.poll()
    poller.register(fd, event)
    return bool(poller.poll(seconds * 1000))


def connect(cfg: PrinterConfig) -> Any:
    """The printer of the configuration, not yet opened; PrinterFault if there is none to open."""
    load_escpos()
    device_printer, network_printer, serial_printer = _escpos_classes()
    if cfg.connection == "usb":
        node = cfg.device or usb_printer_node(cfg.usb)
        if node is None:
            found = f" ({cfg.usb})" if cfg.usb else ""
            raise PrinterFault(f"No USB printer found{found}: is it plugged in and switched on?")
        return device_printer(str(node), cfg.timeout, profile=cfg.profile)
    if cfg.connection == "network":
        return network_printer(host=cfg.host, port=cfg.port, timeout=cfg.timeout, profile=cfg.profile)
    if cfg.connection == "serial":
        return serial_printer(devfile=cfg.device, baudrate=cfg.baud, timeout=cfg.timeout, profile=cfg.profile)
    raise PrinterFault("No printer is set up: see [printer] in the config file (the setup guide says how)")


# ---- printing, and what can go wrong ------------------------------------------------------------


@dataclass(frozen=True)
class Sent:
    """A receipt the printer took; ``note`` says anything the owner should know (paper running low)."""

    note: str = ""


def _paper(printer: Any) -> int | None:
    """python-escpos's paper status: 2 plenty, 1 running low, 0 out; None when the printer does not say."""
    try:
        return int(printer.paper_status())
    except (NotImplementedError, TimeoutError, OSError):
        return None


def send(cfg: PrinterConfig, data: bytes, opener: Callable[[PrinterConfig], Any] = connect) -> Sent:
    """Sends a receipt's bytes to the printer in one go; PrinterFault says why it could not."""
    printer = None
    try:
        printer = opener(cfg)
        printer.open()
        before = _paper(printer)
        if before == 0:
            raise PrinterFault("The printer is out of paper: put in a new roll")
        printer._raw(data)  # python-escpos's own way to a printer: the bytes were made in one piece
        after = _paper(printer)
        if after == 0:
            raise PrinterFault("The printer ran out of paper while printing: put in a new roll and print it again")
        return Sent("The paper is running low: have a new roll ready" if 1 in (before, after) else "")
    except PrinterFault:
        raise
    except Exception as e:
        raise PrinterFault(fault_words(e, cfg)) from e
    finally:
        if printer is not None:
            try:
                printer.close()
            except Exception as e:  # closing a printer that went away is no news
                log.debug("closing the printer: %s", e)


def fault_words(e: BaseException, cfg: PrinterConfig) -> str:
    """What went wrong, in the owner's words."""
    from escpos.exceptions import DeviceNotFoundError, Error, USBNotFoundError

    where = cfg.where
    text = str(e)
    if isinstance(e, DeviceNotFoundError | USBNotFoundError):
        if "ermission denied" in text or "Access denied" in text:
            group = "dialout" if cfg.connection == "serial" else "lp"
            return f"The kiosk may not use the printer at {where}: see the setup guide (group {group})"
        if cfg.connection == "network":
            return f"Cannot reach the printer at {where}: is it switched on and on the bar's network?"
        return f"No printer answers at {where}: is it plugged in and switched on?"
    if _timed_out(e):
        return f"The printer at {where} did not answer in time: is it switched on, its cover closed, paper in?"
    if isinstance(e, OSError):
        return f"The printer at {where} stopped answering while printing: check its cable and power"
    if isinstance(e, Error):
        return f"The printer at {where} refused the receipt ({text}): check the [printer] settings"
    return f"Printing at {where} failed ({type(e).__name__}: {text})"


def _timed_out(e: BaseException) -> bool:
    if isinstance(e, TimeoutError):
        return True
    return type(e).__name__ == "SerialTimeoutException"  # pyserial's, without importing it here


# ---- the print queue: the screen never waits ----------------------------------------------------


@dataclass(frozen=True)
class PrintJob:
    """A receipt to print: the game's facts as they were when asked, kept until printed."""

    facts: GameFacts
    url: str
    reprinted_at: datetime | None = None

    @property
    def game(self) -> int:
        return self.facts.game


@dataclass(frozen=True)
class Printed:
    """How a job went: ``ok``, or not, with a message for the owner; a failed job can be retried as it is."""

    job: PrintJob
    ok: bool
    message: str
    cause: BaseException | None = field(default=None, compare=False, repr=False)  # for the log only


Done = Callable[[Printed], None]


@dataclass
class _Queued:
    job: PrintJob
    done: Done | None = field(default=None)


class ReceiptPrinter:
    """Prints receipts on a thread of its own; the outcome of each is posted back to the caller."""

    def __init__(
        self,
        cfg: PrinterConfig,
        *,
        base_url: str,
        bar_name: str = "",
        table_name: str = "",
        post: Post = run_now,
        done: Done | None = None,
        opener: Callable[[PrinterConfig], Any] = connect,
        tz: tzinfo | None = None,
        state_dir: Path | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now().astimezone(),
    ) -> None:
        self.cfg, self.base_url, self.bar_name, self.table_name = cfg, base_url.rstrip("/"), bar_name, table_name
        self.post, self.done, self.opener, self.tz, self.clock = post, done, opener, tz, clock
        self.state_dir = state_dir
        self._jobs: queue.Queue[_Queued | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.failed: list[PrintJob] = []  # jobs that did not print, until retried
        self._printed_at_end: set[int] = set()  # games printed by ``at_game_over`` since the kiosk started

    @property
    def configured(self) -> bool:
        """Whether there is a printer to print on."""
        return self.cfg.connection != "none"

    @property
    def auto_print(self) -> bool:
        """Whether every game over is printed without asking."""
        return self.configured and self.cfg.auto_print

    def print_game(
        self, state: Any, *, reprint: bool = False, done: Done | None = None, url: str | None = None
    ) -> PrintJob:
        """Queues a game's receipt (a ``GameState`` from the controller) and returns at once;
        ``done`` (else the printer's own) hears how it went, on the kiosk's main thread.
        ``reprint``: a copy of a game printed before, marked so. ``url``: the link to print, when
        not the kiosk's own result page (a league game's page on the league)."""
        job = self.job(state, reprint=reprint, url=url)
        self._queue(_Queued(job, done))
        return job

    def at_game_over(self, state: Any, done: Done | None = None, url: str | None = None) -> PrintJob | None:
        """The receipt printed by itself when a game ends, if the config says so (``auto_print``):
        once a game, however often its game-over screen is shown again; None when not printed."""
        if not self.auto_print or state.status not in (OVER, FINISHED):
            return None
        with self._lock:
            if state.id in self._printed_at_end:
                return None
            self._printed_at_end.add(state.id)
        return self.print_game(state, done=done, url=url)

    def job(self, state: Any, *, reprint: bool = False, url: str | None = None) -> PrintJob:
        """A game's receipt to print, as the game is now."""
        from shared.share import result_url

        link = url or result_url(self.base_url, state.token)
        return PrintJob(facts_of(state), link, self.clock() if reprint else None)

    def headings(self, job: PrintJob) -> dict[str, Any]:
        """What a receipt says beside the game: the bar, the table, the time zone, a reprint's time."""
        return {
            "bar_name": self.bar_name,
            "table_name": self.table_name,
            "tz": self.tz,
            "reprinted_at": job.reprinted_at,
        }

    def retry(self, job: PrintJob, done: Done | None = None) -> None:
        """Prints a job again, exactly as it was asked for."""
        with self._lock:
            if job in self.failed:
                self.failed.remove(job)
        self._queue(_Queued(job, done))

    def close(self, wait: float = 5) -> None:
        """Stops the printing thread once what is queued is printed (or ``wait`` seconds have passed)."""
        thread = self._thread
        if thread is not None:
            self._jobs.put(None)
            thread.join(wait)

    def idle(self, wait: float = 30) -> bool:
        """Waits until every queued receipt has been tried (tests, the command line)."""
        done = threading.Event()
        self._jobs.put(_Queued(PrintJob(_NO_GAME, ""), lambda _p: done.set()))
        self._start()
        return done.wait(wait)

    def _queue(self, item: _Queued) -> None:
        self._jobs.put(item)
        self._start()

    def _start(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="receipt-printer", daemon=True)
                self._thread.start()

    def _work(self) -> None:
        while True:
            item = self._jobs.get()
            if item is None:
                return
            if item.job.facts is _NO_GAME:  # what ``idle`` waits for: everything before it was tried
                if item.done is not None:
                    item.done(Printed(item.job, True, ""))
                continue
            outcome = self.print_now(item.job)
            if not outcome.ok:  # in the kiosk's log, with what python-escpos said, for whoever looks later
                log.warning("receipt of game %s not printed: %s", item.job.game, outcome.message)
                if outcome.cause is not None:
                    log.info("the printer's fault in full", exc_info=outcome.cause)
            self._report(item, outcome)

    def receipt(self, job: PrintJob) -> Receipt:
        """A job's receipt, in what this printer can print."""
        load_escpos(self.state_dir)
        return receipt_of(job.facts, self.cfg, url=job.url, **self.headings(job))

    def print_now(self, job: PrintJob) -> Printed:
        """Prints a job on this thread (the command line's way, and the printing thread's); a job
        that fails is kept in ``failed`` until retried."""
        try:
            sent = send(self.cfg, receipt_bytes(self.receipt(job), self.cfg), self.opener)
        except Exception as e:  # a receipt that cannot be made is a fault like any other, never a crash
            with self._lock:
                self.failed.append(job)
            if isinstance(e, PrinterFault):
                return Printed(job, False, str(e), e.__cause__)
            return Printed(job, False, f"The receipt could not be made ({type(e).__name__}: {e})", e)
        message = f"Game {job.game}'s receipt is printed" + (f". {sent.note}" if sent.note else "")
        return Printed(job, True, message)

    def _report(self, item: _Queued, outcome: Printed) -> None:
        done = item.done or self.done
        if done is not None:
            self.post(lambda: done(outcome))


_NO_GAME = GameFacts(0, "", {}, {}, "", "", "", None, (0, 0), None, (), ())  # the marker ``idle`` queues
