"""The receipt printer: its settings, its faults (a message, a retry, nothing lost, no traceback),
a screen that never waits for it, and real printers' ends: a device node (a pseudo-terminal
standing in for /dev/usb/lp0), a serial port, a network printer on loopback."""

from __future__ import annotations

import errno
import os
import platform
import socket
import subprocess
import sys
import threading
import time
import tty

import pytest

from kiosk.config import ConfigError, load_config
from kiosk.receipt_escpos import load_escpos

load_escpos()  # before python-escpos is imported by the tests themselves

import serial  # noqa: E402
from escpos.exceptions import USBNotFoundError  # noqa: E402
from escpos.printer import Dummy  # noqa: E402

from kiosk import printer as printer_module  # noqa: E402
from kiosk.printer import PrinterFault, ReceiptPrinter, send, usb_printer_node  # noqa: E402
from kiosk.printer_config import PrinterConfigError, printer_config, service_access  # noqa: E402
from kiosk.receipt_escpos import dummy, receipt_bytes  # noqa: E402
from tests.escpos_bytes import read  # noqa: E402
from tests.helpers import clabber  # noqa: E402
from tests.store_helpers import QUICK_HANDS, event_count, open_table  # noqa: E402

USB = {"connection": "usb", "device": "/dev/usb/lp0"}


@pytest.fixture
def table(tmp_path):
    t = open_table(tmp_path / "clabber.db")
    yield t
    t.store.close()


@pytest.fixture
def game(table):
    """A game over: EW won at 495 of 480."""
    g = table.new_game(["Hearts & Co", "Die Büffel"], ["Anna", "Zoë", "Müller", "Łukasz"], {"target": 480}, "N")
    for h in QUICK_HANDS[:3]:
        g = table.add_hand(g.id, h)
    assert g.status == "over"
    return g


@pytest.fixture(autouse=True)
def quick_status(monkeypatch):
    monkeypatch.setattr(printer_module, "STATUS_WAIT", 0.2)  # a printer that never answers is not waited for long


class Shelf(Dummy):
    """python-escpos's Dummy printer with a paper sensor and the faults of a real one."""

    def __init__(self, papers=(2, 2), on_open=None, on_write=None, **kw):
        super().__init__(**kw)
        self.papers, self.on_open, self.on_write = list(papers), on_open, on_write

    def open(self):
        if self.on_open is not None:
            raise self.on_open

    def paper_status(self):  # as python-escpos reports it: 2 plenty, 1 running low, 0 out
        return self.papers.pop(0) if len(self.papers) > 1 else self.papers[0]

    def _raw(self, msg):
        if self.on_write is not None:
            raise self.on_write
        super()._raw(msg)


def receipts(shelf, cfg=USB, **kw):
    """A printer on the kiosk's side: outcomes posted to a list that the test runs as the main thread."""
    posted, outcomes = [], []
    rp = ReceiptPrinter(
        printer_config(cfg),
        base_url="http://clabber-3.local:8080",
        bar_name="The Red Lion",
        post=posted.append,
        done=outcomes.append,
        opener=lambda _cfg: shelf,
        **kw,
    )
    return rp, posted, outcomes


def settle(rp, posted):
    """Waits for the printing thread, then runs what it posted, as the kiosk's main thread would."""
    assert rp.idle(10)
    while posted:
        posted.pop(0)()


def printed_url(data, cfg=USB):
    out = read(data, dummy(printer_config(cfg)).profile.get_code_pages())
    return out.qr[0].decode() if out.qr else None


def test_out_of_paper_is_a_message_and_a_retry_prints_the_whole_receipt(table, game):
    shelf = Shelf(papers=(0,))
    rp, posted, outcomes = receipts(shelf)
    events = event_count(table.store, game.id)
    job = rp.print_game(game)
    settle(rp, posted)
    [outcome] = outcomes
    assert not outcome.ok and outcome.message == "The printer is out of paper: put in a new roll"
    assert shelf.output == b"" and rp.failed == [job]  # nothing sent, the receipt kept
    shelf.papers = [2, 2]  # a new roll
    rp.retry(outcome.job)
    settle(rp, posted)
    assert outcomes[-1].ok and outcomes[-1].message == "Game 1's receipt is printed" and rp.failed == []
    assert shelf.output == receipt_bytes(rp.receipt(job), rp.cfg)  # the whole receipt, as first asked for
    assert printed_url(shelf.output) == f"http://clabber-3.local:8080/g/{game.token}"
    assert event_count(table.store, game.id) == events and table.game(game.id).status == "over"


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        (USBNotFoundError("Device (1208, 3624) not found or cable not plugged in."), "No printer answers at"),
        (TimeoutError("timed out"), "did not answer in time"),
        (serial.SerialTimeoutException("Write timeout"), "did not answer in time"),
        (OSError(errno.ENODEV, "No such device"), "stopped answering while printing"),
        (BrokenPipeError(errno.EPIPE, "Broken pipe"), "stopped answering while printing"),
        (ValueError("something unforeseen"), "failed (ValueError: something unforeseen)"),
    ],
)
def test_each_fault_is_a_message_in_words_and_the_job_waits_for_a_retry(game, fault, words):
    at_open = isinstance(fault, USBNotFoundError)
    shelf = Shelf(on_open=fault if at_open else None, on_write=None if at_open else fault)
    rp, posted, outcomes = receipts(shelf)
    job = rp.print_game(game)
    settle(rp, posted)
    [outcome] = outcomes
    assert not outcome.ok and words in outcome.message and "/dev/usb/lp0" in outcome.message
    assert "\n" not in outcome.message and "Traceback" not in outcome.message
    assert rp.failed == [job]
    shelf.on_open = shelf.on_write = None  # the owner fixed it
    rp.retry(job)
    settle(rp, posted)
    assert outcomes[-1].ok and printed_url(shelf.output) == job.url


def test_paper_running_out_while_printing_and_running_low_are_said():
    from kiosk.printer import Sent

    cfg = printer_config(USB)
    with pytest.raises(PrinterFault, match="ran out of paper while printing: put in a new roll and print it again"):
        send(cfg, b"receipt", lambda _c: Shelf(papers=(2, 0)))
    assert send(cfg, b"receipt", lambda _c: Shelf(papers=(1, 1))) == Sent(
        "The paper is running low: have a new roll ready"
    )
    assert send(cfg, b"receipt", lambda _c: Dummy()) == Sent("")  # a printer that cannot say: printed all the same


def test_the_screen_never_waits_for_the_printer(game):
    go = threading.Event()

    class Slow(Shelf):
        def _raw(self, msg):
            go.wait(10)
            super()._raw(msg)

    rp, posted, outcomes = receipts(Slow())
    started = time.monotonic()
    rp.print_game(game)
    assert time.monotonic() - started < 0.5 and outcomes == []  # handed over; the printer still busy
    time.sleep(0.2)
    assert posted == []
    go.set()
    settle(rp, posted)
    assert [o.ok for o in outcomes] == [True]
    rp.close()


def test_without_a_printer_set_up_printing_says_so(game):
    rp = ReceiptPrinter(printer_config({}), base_url="http://x")
    assert not rp.configured and not rp.auto_print
    outcome = rp.print_now(rp.job(game))
    assert not outcome.ok and outcome.message.startswith("No printer is set up")


def test_auto_print_prints_each_game_once_when_it_ends(table, game):
    rp, posted, outcomes = receipts(Shelf(), cfg={**USB, "auto_print": True})
    assert rp.at_game_over(game) is not None and rp.at_game_over(game) is None  # the screen shown again
    playing = table.new_game(["A", "B"], None, "evansville", "N")
    assert rp.at_game_over(playing) is None  # not over yet
    settle(rp, posted)
    assert [o.ok for o in outcomes] == [True]
    quiet, _, _ = receipts(Shelf())  # auto_print = false, the default
    assert quiet.at_game_over(game) is None


def test_a_reprint_is_marked(game):
    rp, posted, _ = receipts(shelf := Shelf())
    rp.print_game(game, reprint=True)
    settle(rp, posted)
    out = read(shelf.output, shelf.profile.get_code_pages())
    assert any(line.startswith("REPRINT ") for line in out.lines)


# ---- the printer's end: real device nodes and sockets ----------------------------------------------


class PtyPrinter:
    """A pseudo-terminal standing in for a printer's device node: it takes what is sent, answers
    status queries with ``paper`` (python-escpos's bits: 0x12 paper present, 0x72 none), or takes
    nothing at all when ``stuck``."""

    def __init__(self, paper: int | None = 0x12, stuck: bool = False) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # bytes as they are: no newline translation
        self.path = os.ttyname(self.slave)
        self.paper, self.got, self.stop = paper, bytearray(), threading.Event()
        if not stuck:
            threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        import select

        while not self.stop.is_set():
            if not select.select([self.master], [], [], 0.05)[0]:
                continue
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            self.got += chunk
            for _ in range(chunk.count(b"\x10\x04\x04")):
                if self.paper is not None:
                    os.write(self.master, bytes([self.paper]))

    def receipt(self) -> bytes:
        return bytes(self.got).replace(b"\x10\x04\x04", b"")

    def close(self) -> None:
        self.stop.set()
        os.close(self.slave)
        os.close(self.master)


@pytest.fixture
def pty_printer():
    made = []

    def make(**kw):
        made.append(PtyPrinter(**kw))
        return made[-1]

    yield make
    for p in made:
        p.close()


def wait_for(condition, seconds=5):
    end = time.monotonic() + seconds
    while not condition() and time.monotonic() < end:
        time.sleep(0.02)
    return condition()


def test_a_usb_printer_node_receives_the_receipt_and_reports_its_paper(game, pty_printer):
    device = pty_printer()
    rp = ReceiptPrinter(printer_config({"connection": "usb", "device": device.path}), base_url="http://x")
    job = rp.job(game)
    assert rp.print_now(job).ok
    data = receipt_bytes(rp.receipt(job), rp.cfg)
    assert wait_for(lambda: device.receipt() == data)
    empty = pty_printer(paper=0x72)
    rp = ReceiptPrinter(printer_config({"connection": "usb", "device": empty.path}), base_url="http://x")
    outcome = rp.print_now(job)
    assert not outcome.ok and "out of paper" in outcome.message
    time.sleep(0.2)
    assert empty.receipt() == b""  # nothing printed on an empty roll


@pytest.mark.slow
def test_a_printer_that_takes_nothing_times_out(pty_printer):
    stuck = pty_printer(stuck=True)
    cfg = printer_config({"connection": "usb", "device": stuck.path, "timeout": 1})
    started = time.monotonic()
    with pytest.raises(PrinterFault, match=f"The printer at {stuck.path} did not answer in time"):
        send(cfg, b"x" * 4_000_000)
    assert time.monotonic() - started < 10


def test_a_missing_usb_printer_is_said(tmp_path):
    with pytest.raises(PrinterFault, match="No printer answers at /dev/usb/lp9: is it plugged in and switched on"):
        send(printer_config({"connection": "usb", "device": "/dev/usb/lp9"}), b"x")
    empty = tmp_path / "usbmisc"
    empty.mkdir()
    printer_module.SYS_USB_PRINTERS, old = empty, printer_module.SYS_USB_PRINTERS
    try:
        with pytest.raises(PrinterFault, match=r"No USB printer found \(04b8:0e28\): is it plugged in"):
            send(printer_config({"connection": "usb", "usb": "04b8:0e28"}), b"x")
    finally:
        printer_module.SYS_USB_PRINTERS = old


def test_usb_printers_are_found_by_their_ids_in_sysfs(tmp_path):
    sys_dir = tmp_path / "class" / "usbmisc"
    sys_dir.mkdir(parents=True)
    for lp, port, ids in (("lp0", "1-1.2", ("0416", "5011")), ("lp1", "1-1.3", ("04b8", "0E28"))):
        interface = tmp_path / "devices" / port / f"{port}:1.0"
        interface.mkdir(parents=True)
        (interface.parent / "idVendor").write_text(ids[0] + "\n")
        (interface.parent / "idProduct").write_text(ids[1] + "\n")
        (sys_dir / lp).mkdir()
        (sys_dir / lp / "device").symlink_to(interface)
    dev = tmp_path / "dev"
    assert usb_printer_node("04b8:0e28", sys_dir, dev) == dev / "lp1"
    assert usb_printer_node("", sys_dir, dev) == dev / "lp0"  # the first there is
    assert usb_printer_node("0519:0001", sys_dir, dev) is None


def test_a_serial_printer_receives_the_receipt(game, pty_printer):
    device = pty_printer()
    rp = ReceiptPrinter(printer_config({"connection": "serial", "device": device.path, "baud": 19200}), base_url="x")
    job = rp.job(game)
    assert rp.print_now(job).ok
    assert wait_for(lambda: device.receipt() == receipt_bytes(rp.receipt(job), rp.cfg))


def test_a_network_printer_receives_the_receipt_and_one_that_is_off_is_said(game):
    got = bytearray()
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def printer():
        conn, _ = server.accept()
        with conn:
            while chunk := conn.recv(65536):
                got.extend(chunk)
                for _ in range(chunk.count(b"\x10\x04\x04")):
                    conn.sendall(b"\x12")

    threading.Thread(target=printer, daemon=True).start()
    rp = ReceiptPrinter(printer_config({"connection": "network", "host": "127.0.0.1", "port": port}), base_url="x")
    job = rp.job(game)
    assert rp.print_now(job).ok
    assert wait_for(lambda: bytes(got).replace(b"\x10\x04\x04", b"") == receipt_bytes(rp.receipt(job), rp.cfg))
    server.close()
    outcome = rp.print_now(job)  # nobody listens there now
    assert not outcome.ok
    assert outcome.message == (
        f"Cannot reach the printer at 127.0.0.1:{port}: is it switched on and on the bar's network?"
    )


# ---- the settings -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "why"),
    [
        ({"connection": "bluetooth"}, "printer.connection: 'bluetooth' is not usb, network, serial or none"),
        ({"paper": 57}, "printer.paper: 57 is not 58 or 80"),
        ({"paper": 58, "columns": 48}, "printer.columns: 48 does not fit 58 mm paper (32)"),
        ({"paper": "80"}, "printer.paper: must be a whole number"),
        ({"usb": "04b8-0e28", "connection": "usb"}, "printer.usb: '04b8-0e28' is not vendor:product as lsusb"),
        ({"connection": "network", "host": "printer.local"}, "printer.host: 'printer.local' is not an IP address"),
        ({"connection": "network"}, "printer.host: '' is not an IP address"),
        ({"port": 0}, "printer.port: 0 is not a port number"),
        ({"connection": "serial"}, "printer.device: give the serial port"),
        ({"connection": "serial", "device": "COM1"}, "printer.device: 'COM1' is not a device under /dev"),
        ({"baud": 9601}, "printer.baud: 9601 is not one of 1200"),
        ({"qr": "laser"}, "printer.qr: 'laser' is not auto, native or image"),
        ({"auto_print": "yes"}, "printer.auto_print: must be true or false"),
        ({"timeout": 0}, "printer.timeout: must be from 1 to 120 seconds"),
        ({"profile": "TM-T1000"}, "printer.profile: 'TM-T1000' is not a printer profile python-escpos knows"),
        ({"colour": "red"}, "printer.colour: unknown setting (known: auto_print, baud"),
    ],
)
def test_bad_printer_settings_are_refused_naming_the_key(table, why):
    with pytest.raises(PrinterConfigError) as e:
        printer_config(table)
    assert str(e.value).startswith(why)


def test_good_printer_settings(tmp_path):
    cfg = printer_config({"connection": "USB", "usb": "04B8:0E28", "paper": 58, "profile": "TM-T20II"})
    assert (cfg.connection, cfg.width, cfg.dots, cfg.where) == ("usb", 32, 384, "USB 04B8:0E28")
    assert printer_config({"paper": 80, "columns": 42}).dots == 512
    path = tmp_path / "config.toml"
    path.write_text('bar_name = "Red Lion"\n[printer]\nconnection = "network"\nhost = "10.0.0.9"\nauto_print = true\n')
    cfg = load_config(env={"CLABBER_CONFIG": str(path), "HOME": str(tmp_path)})
    assert cfg.bar_name == "Red Lion" and cfg.printer.auto_print and cfg.printer.where == "10.0.0.9:9100"
    path.write_text('[printer]\nconnection = "lpt"\n')
    with pytest.raises(ConfigError, match=f"^{path}: printer.connection: 'lpt' is not usb"):
        load_config(env={"CLABBER_CONFIG": str(path), "HOME": str(tmp_path)})
    path.write_text("printer = 5\n")
    with pytest.raises(ConfigError, match=f"^{path}: printer: must be a table"):
        load_config(env={"CLABBER_CONFIG": str(path), "HOME": str(tmp_path)})


def test_the_service_is_let_reach_the_printer_and_nothing_more():
    assert service_access(printer_config({"connection": "usb"})) == ""  # the unit allows USB printers itself
    serial_usb = service_access(printer_config({"connection": "serial", "device": "/dev/ttyUSB0"}))
    assert "DeviceAllow=char-ttyUSB rw\nSupplementaryGroups=dialout\n" in serial_usb
    uart = service_access(printer_config({"connection": "serial", "device": "/dev/ttyAMA0"}))
    assert "DeviceAllow=/dev/ttyAMA0 rw\n" in uart
    net = service_access(printer_config({"connection": "network", "host": "192.168.1.50"}))
    assert "[Service]\nRestrictAddressFamilies=AF_INET\nIPAddressAllow=192.168.1.50\n" in net


# ---- clabber print ------------------------------------------------------------------------------------


@pytest.fixture
def cli_game(tmp_path):
    db = tmp_path / "clabber.db"
    config = tmp_path / "config.toml"
    config.write_text('public_url = "http://clabber-3.local:8080"\ntable_name = "Table 3"\n')
    env = {"CLABBER_CONFIG": str(config)}
    r = clabber("game", "--db", str(db), "new", "--teams", "Hearts", "Spades", "--first-dealer", "N", env=env)
    assert r.returncode == 0
    for h in QUICK_HANDS[:3]:
        import json

        assert clabber("game", "--db", str(db), "hand", "1", "-", stdin=json.dumps(h), env=env).returncode == 0
    return db, env, tmp_path


def test_clabber_print_writes_the_bytes_and_the_picture(cli_game):
    import zxingcpp
    from PIL import Image

    db, env, tmp = cli_game
    r = clabber("print", "1", "--db", str(db), "--dummy", str(tmp / "r.bin"), "--image", str(tmp / "r.png"), env=env)
    assert r.returncode == 0, r.stderr
    url = printed_url((tmp / "r.bin").read_bytes(), {"paper": 80})
    assert url.startswith("http://clabber-3.local:8080/g/")
    assert [c.text for c in zxingcpp.read_barcodes(Image.open(tmp / "r.png"))] == [url]


@pytest.mark.parametrize(
    ("args", "code", "line"),
    [
        ((), 2, "print: no printer is set up ([printer] in the config file); --dummy FILE writes its bytes instead"),
        (("--printer-config", "P"), 3, "print: No printer answers at /dev/usb/lp9: is it plugged in and switched on? "
                                       "(nothing is lost: run it again once the printer is ready)"),
        (("--printer-config", "BAD"), 2, "BAD: printer.paper: 57 is not 58 or 80 (the roll's width in mm)"),
        (("--printer-config", "NONE"), 2, "NONE: cannot read: No such file or directory"),
    ],
)  # fmt: skip
def test_clabber_print_refuses_in_one_line(cli_game, args, code, line):
    db, env, tmp = cli_game
    (tmp / "P").write_text('[printer]\nconnection = "usb"\ndevice = "/dev/usb/lp9"\n')
    (tmp / "BAD").write_text("paper = 57\n")
    files = ("P", "BAD", "NONE")
    r = clabber("print", "1", "--db", str(db), *(str(tmp / a) if a in files else a for a in args), env=env)
    assert r.returncode == code and r.stdout == ""
    for name in files:
        line = line.replace(f"{name}:", f"{tmp / name}:")
    assert r.stderr == line + "\n"


@pytest.mark.slow  # eight Python processes started at once
def test_programs_importing_the_printer_library_at_once_all_start(tmp_path):
    """python-escpos writes its printer data's pickle in place at its first import and reads it
    without a lock: programs that start together (the kiosk and a command, at first boot or after
    an upgrade) must never read another's half-written file."""
    state = tmp_path / "state"
    code = (
        "import sys; from pathlib import Path; from kiosk.receipt_escpos import load_escpos;"
        " load_escpos(Path(sys.argv[1]))"
    )
    env = {k: v for k, v in os.environ.items() if k != "ESCPOS_CAPABILITIES_PICKLE_DIR"}
    for _ in range(3):  # a first import with nothing kept, then again with the pickle kept
        starting = [
            subprocess.Popen([sys.executable, "-c", code, str(state)], stderr=subprocess.PIPE, text=True, env=env)
            for _ in range(8)
        ]
        failed = [err for p in starting if (err := p.communicate(timeout=60)[1]) and p.returncode != 0]
        assert not failed, failed[0]
    kept = list((state / "escpos").iterdir())
    assert [p.name for p in kept] == [f"{platform.python_version()}.capabilities.pickle"]  # no folder left behind
