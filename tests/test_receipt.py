"""The printed receipt: its bytes read back as a printer reads them (python-escpos's Dummy
printer), its picture read by a QR decoder, every line within the paper for any names."""

from __future__ import annotations

import string
from datetime import UTC, datetime, timedelta, timezone

import pytest
import zxingcpp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.output import sheet_to_json
from kiosk.printer_config import printer_config
from kiosk.receipt import Code, Correction, GameFacts, Hand, Line, facts_of, printable, receipt
from kiosk.receipt_escpos import dummy, receipt_bytes, receipt_of
from kiosk.receipt_image import receipt_image
from tests.escpos_bytes import read
from tests.helpers import ROOT
from tests.store_helpers import QUICK_HANDS, open_table

PASSED_OUT = {"bids": ["pass"] * 8}
URL = "http://clabber-3.local:8080/g/"


@pytest.fixture
def table(tmp_path):
    t = open_table(tmp_path / "clabber.db")
    yield t
    t.store.close()


@pytest.fixture
def game(table):
    """A game EW won at 505, with a set, a pass-out, a renege, and hand 1 corrected by the owner."""
    g = table.new_game(["Hearts & Co", "Die Büffel"], ["Anna", "Zoë", "Müller", "Łukasz"], "evansville", "N")
    for h in (QUICK_HANDS[0], QUICK_HANDS[1], PASSED_OUT, QUICK_HANDS[3], QUICK_HANDS[2]):
        g = table.add_hand(g.id, h)
    table.set_pin("739146")
    g = table.correct(g.id, 1, {"trump": "H", "maker": "E", "points": {"NS": 60, "EW": 102}}, "NS miscounted", "739146")
    assert (g.status, g.winner, g.sheet.totals) == ("over", "EW", (262, 505))
    return g


def printout(g, **settings_):
    """The receipt of a game (a GameState, or its facts) read back from the printer's bytes."""
    cfg = printer_config(settings_)
    facts = g if isinstance(g, GameFacts) else facts_of(g)
    rcpt = receipt_of(facts, cfg, url=URL + facts.token, bar_name="The Red Lion", table_name="Table 3")
    return read(receipt_bytes(rcpt, cfg), dummy(cfg).profile.get_code_pages()), cfg


def sheet_rows(lines):
    """The sheet's rows as printed: each hand's line in words (the correction mark apart). A row has the
    bar between its scores and the totals; the result's link, cut to the paper's width under its QR
    code, can have a line that starts with digits too."""
    rows = [line for line in lines if line[:3].strip().rstrip("*").isdigit() and "|" in line]
    return [line.replace("*", " * ").split() for line in rows]


@pytest.mark.parametrize(("paper", "columns"), [(58, 32), (80, 48), (80, 42)])
def test_the_text_lines_match_the_sheet_at_each_paper_width(game, paper, columns):
    out, cfg = printout(game, paper=paper, columns=columns)
    assert cfg.width == columns and out.cut
    assert all(len(line) <= columns for line in out.lines)
    big = [line for line, style in zip(out.lines, out.styles, strict=True) if style["big"]]
    assert big and all(len(line) <= columns // 2 for line in big)
    expected = []
    for r, hand in zip(sheet_to_json(game.sheet)["rows"], game.hands, strict=True):
        # as the paper sheet: XX for a set, - for any zero (a pass-out's too), else the score
        cells = [r["marks"][t] or (str(r["score"][t]) if r["score"][t] else "-") for t in ("NS", "EW")]
        mark = ["*"] if hand.corrections else []
        totals = [str(r["totals"]["NS"]), str(r["totals"]["EW"])]
        expected.append([str(r["hand"]), *mark, r["dealer"], *cells, "|", *totals])
    assert sheet_rows(out.lines) == expected
    assert expected[1][2] == "XX" and expected[3][3] == "-"  # a set and a zero, as the sheet marks them
    bars = {line.index("|") for line in out.lines if "|" in line}
    assert len(bars) == 1  # the columns line up
    text = "\n".join(out.lines)
    for words in ("The Red Lion", "Table 3", "Hearts & Co", "N Anna, S Müller", "E Zoë, W Łukasz", "passed out",
                  "renege EW", "WINNERS", "Die Büffel (EW)", "NS 262 - 505 EW", "hand 1, ", "NS miscounted",
                  "Game 1"):  # fmt: skip
        assert words in text, words
    totals = next(line for line in out.lines if line.startswith("Total"))
    assert totals.split()[-2:] == ["262", "505"]


@pytest.mark.parametrize("paper", [58, 80])
def test_the_qr_command_carries_exactly_the_result_link(game, paper):
    out, _ = printout(game, paper=paper, qr="native")
    assert out.qr == [(URL + game.token).encode()] and not out.pictures
    after = [line for line in out.lines[out.lines.index("The result on your phone:") + 1 :] if line]
    assert "".join(after[:-1]) == URL + game.token and after[-1] == "Game 1"  # the short link under the code, whole


def test_a_printer_without_its_own_qr_gets_a_picture_that_decodes_to_the_link(game):
    out, cfg = printout(game, paper=58, profile="POS-5890")  # a cheap 58 mm printer: no QR command
    assert not out.qr and len(out.pictures) == 1
    picture = out.pictures[0]
    assert picture.width == cfg.dots == 384
    assert [r.text for r in zxingcpp.read_barcodes(picture)] == [URL + game.token]


def test_the_receipt_as_a_picture_decodes_to_the_link(game, tmp_path):
    for paper in (58, 80):
        cfg = printer_config({"paper": paper})
        rcpt = receipt_of(facts_of(game), cfg, url=URL + game.token, bar_name="The Red Lion", table_name="Table 3")
        picture = receipt_image(rcpt, cfg.dots)
        assert picture.width == cfg.dots and picture.height >= 30 * len(rcpt.text())  # a line of room each
        assert [r.text for r in zxingcpp.read_barcodes(picture)] == [URL + game.token]
    shown = ROOT / "docs" / "images" / "receipt-58mm.png"  # the README's picture is a working receipt
    from PIL import Image

    [found] = zxingcpp.read_barcodes(Image.open(shown))
    assert found.text.startswith("http://clabber-3.local:8080/g/")


def test_names_are_printed_in_the_printers_code_pages_or_spelt_plainly_never_garbled(table):
    g = table.new_game(["Ça va", "Straße"], ["Müller", "Zoë ☃", "Łukasz", "Ærø 🎉"], "evansville", "N")
    g = table.add_hand(g.id, QUICK_HANDS[0])
    full, _ = printout(g)  # the default profile: the common code pages
    text = "\n".join(full.lines)
    assert "E Zoë ?" in text and "N Müller" in text and "S Łukasz" in text and "W Ærø ?" in text
    assert "NS  Ça va" in text and "EW  Straße" in text
    assert {"CP437", "CP852"} <= set(full.pages)  # ë and ü in the first, Ł in the second
    plain, _ = printout(g, profile="simple")  # a printer with one code page (437): Æ but no ø, no Ł
    text = "\n".join(plain.lines)
    assert "E Zoë ?" in text and "S Lukasz" in text and "W Æro ?" in text and set(plain.pages) == {"CP437"}
    g = table.new_game(["李雷", "Ｆｕｌｌ"], None, "evansville", "N")
    out, _ = printout(table.add_hand(g.id, QUICK_HANDS[0]))
    assert "NS  ??" in out.lines and "EW  Full" in out.lines  # python-escpos would send Chinese as GB18030
    # A name from elsewhere (an old import) with a printer command in it prints as text, obeyed never
    out, _ = printout(_facts(teams={"NS": "Ruminers\x1bd\x09\x1dV\x00", "EW": "B"}))
    assert "NS  Ruminersd V" in out.lines and out.cut  # the tab a space, ESC, GS and NUL nothing


def test_printable_spells_what_a_printer_lacks():
    assert printable("Łódź ﬁne\tß") == "Lodz fine ss"
    assert printable("e\u0301") == "e"  # an accent the printer lacks leaves its letter
    assert printable("é", lambda ch: ch == "é") == "é"
    assert printable("a\u200db\u202ec\x07") == "abc"  # joiners, direction marks and bells print nothing
    assert printable("🂡") == "?"


@pytest.mark.parametrize(
    ("status", "winner", "reason", "words"),
    [
        ("over", "tie", None, "A TIE"),
        ("abandoned", None, "the bar closed", "GAME ABANDONED"),
        ("finished", None, None, "GAME ENDED BY THE TABLE"),
        ("open", None, None, "IN PLAY after 1 hand"),
    ],
)
def test_how_the_game_ended_is_said(status, winner, reason, words):
    facts = _facts(status=status, winner=winner, end_reason=reason)
    text = receipt(facts, url=URL + "t", columns=32).text()
    assert any(words in line for line in text) and (reason is None or any(reason in line for line in text))


def test_a_reprint_says_so_with_the_bars_time():
    bar = timezone(timedelta(hours=2))
    facts = _facts(started_at="2026-03-14T19:05:00.000+00:00", ended_at="2026-03-14T20:47:00.000+00:00")
    later = datetime(2026, 3, 15, 9, 2, tzinfo=UTC)
    text = receipt(facts, url=URL + "t", columns=32, tz=bar, reprinted_at=later).text()
    assert "Sat 14 Mar 2026 21:05-22:47" in "\n".join(text)
    assert any(line.strip() == "REPRINT Sun 15 Mar 2026 11:02" for line in text)
    assert not any("REPRINT" in line for line in receipt(facts, url=URL + "t", columns=32).text())


def _facts(**kw):
    base = dict(
        game=7,
        token="t",
        teams={"NS": "A", "EW": "B"},
        players={},
        started_at="2026-03-14T19:05:00.000+00:00",
        ended_at="2026-03-14T20:47:00.000+00:00",
        status="over",
        winner="NS",
        totals=(501, 300),
        end_reason=None,
        hands=(Hand(1, "N", "162", "-", 501, 300),),
        corrections=(),
    )
    return GameFacts(**{**base, **kw})


names = st.text(st.characters(codec="utf-8"), min_size=1, max_size=60)
cells = st.one_of(st.sampled_from(["XX", "-"]), st.integers(0, 10_500).map(str))
hands = st.builds(
    Hand,
    number=st.integers(1, 400),
    dealer=st.sampled_from("NESW"),
    ns=cells,
    ew=cells,
    total_ns=st.integers(0, 20_000),
    total_ew=st.integers(0, 20_000),
    notes=st.lists(
        st.sampled_from(["passed out", "misdeal", "renege NS", "deal moved", "both reneged"]), max_size=2
    ).map(tuple),
    corrected=st.booleans(),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    columns=st.sampled_from([32, 42, 48]),
    teams=st.tuples(names, names),
    players=st.dictionaries(st.sampled_from("NESW"), names),
    bar=st.text(st.characters(codec="utf-8"), max_size=60),
    table_name=st.text(st.characters(codec="utf-8"), max_size=60),
    sheet=st.lists(hands, max_size=12),
    status=st.sampled_from(["open", "over", "finished", "abandoned"]),
    winner=st.sampled_from([None, "NS", "EW", "tie"]),
    reason=st.one_of(st.none(), names),
    corrections=st.lists(st.builds(Correction, st.integers(1, 400), st.just("2026-03-14T20:00:00+00:00"), names)),
    token=st.text(string.ascii_letters + string.digits + "-_", min_size=8, max_size=200),
)
def test_every_line_fits_the_paper_for_any_names_and_scores(
    columns, teams, players, bar, table_name, sheet, status, winner, reason, corrections, token
):
    facts = _facts(
        teams={"NS": teams[0], "EW": teams[1]},
        players=players,
        hands=tuple(sheet),
        status=status,
        winner=winner,
        end_reason=reason,
        totals=(sum(h.total_ns for h in sheet[-1:]), sum(h.total_ew for h in sheet[-1:])),
        corrections=tuple(corrections),
    )
    url = URL + token
    rcpt = receipt(facts, url=url, columns=columns, bar_name=bar, table_name=table_name)
    lines = [p for p in rcpt.parts if isinstance(p, Line)]
    for line in lines:
        assert len(line.text) <= (columns // 2 if line.big else columns), line
        assert line.text.isprintable() and line.text.isascii()  # nothing the printer would take as a command
    assert [p.url for p in rcpt.parts if isinstance(p, Code)] == [url]
    after = [p.text for p in rcpt.parts[rcpt.parts.index(Code(url)) + 1 :] if isinstance(p, Line)]
    assert "".join(after[:-1]) == url  # the whole link under its code, however long


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    teams=st.tuples(names, names),
    players=st.dictionaries(st.sampled_from("NESW"), names),
    profile=st.sampled_from(["default", "simple", "TM-T20II", "POS-5890"]),
)
def test_whatever_the_names_the_printer_prints_exactly_the_receipts_lines(teams, players, profile):
    cfg = printer_config({"profile": profile, "paper": 58})
    facts = _facts(teams={"NS": teams[0], "EW": teams[1]}, players=players)
    rcpt = receipt_of(facts, cfg, url=URL + "t0ken", bar_name=teams[1])
    out = read(receipt_bytes(rcpt, cfg), dummy(cfg).profile.get_code_pages())  # no stray command, no lost byte
    assert [line for line in out.lines if line] == [p.text for p in rcpt.parts if isinstance(p, Line) and p.text]
    assert out.qr == [(URL + "t0ken").encode()] or [r.text for r in zxingcpp.read_barcodes(out.pictures[0])] == [
        URL + "t0ken"
    ]
