"""Every message the entry screens can put in their strip fits it at both panel sizes (one line on
the 7" display, two on Touch Display 2), in the players' words: never the engine's own text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kivy.core.text import Label as CoreLabel

from engine.cards import CARDS, card_name, card_set, parse_card
from engine.errors import EntryError
from engine.record import read_hand
from kiosk.ui import theme, words
from kiosk.ui.entry import MELD_KINDS, Entry, MeldChip

# The panel, and how many lines its strip holds (kiosk/ui/kv/common.kv, Strip).
PANELS = {(800, 480): 1, (720, 1280): 2}
WIDEST = "999"  # fills a saying's blanks: wider than any seat, team or points it takes
# What only the engine says: a record's path ("melds.N[0]", "plays[5]") or its wording.
ENGINE = re.compile(r"\w\.\w|\[\d+\]|you hold|record|engine|bids")


@pytest.fixture(autouse=True, scope="module")
def _window():
    """Kivy draws text once its window is up (SDL's text needs it), in the kiosk's font."""
    from kivy.base import EventLoop

    from kiosk.ui.app import load_style

    EventLoop.ensure_window()
    load_style()


def lines_in_strip(text: str, size: tuple[int, int]) -> list[str]:
    """The lines ``text`` takes in the strip of a screen at ``size`` (its narrowest: the summary)."""
    theme.set_panel(theme.panel_px_per_mm(*size))
    width = size[0] - 2 * theme.mm(1) - 12
    core = CoreLabel(text=text, font_size=theme.small(), bold=True, text_size=(width, None))
    core.refresh()
    for word in text.split():
        whole = CoreLabel(text=word, font_size=theme.small(), bold=True)
        whole.refresh()
        assert whole.content_width <= width, f"{word!r} of {text!r} is wider than the strip at {size}"
    return ["".join(w.text for w in line.words) for line in core._cached_lines]


def every_message() -> list[str]:
    """Each saying with its blanks filled as wide as they come, and everything the screens say."""
    said = [template.format(*[WIDEST] * 9) for _, template in words.SAYINGS]
    said += list(words.GENERAL.values())
    said += [getattr(words, name) for name in dir(words) if name.isupper() and isinstance(getattr(words, name), str)]
    said += [words.too_many("999"), words.to_play("W", "EW"), words.play_ends("EW"), words.name_the_team("EW")]
    said += [words.deals_first("W")]
    said += [MeldChip(kind).too_low() for kind in MELD_KINDS if kind != "four"]
    ten_of_diamonds = ["TD"]
    for line in ("plays[3]: TD was already played at plays[1]", "plays[3]: TD is also in melds.W[0]", "x", ""):
        said.append(words.card_refusal(ten_of_diamonds[0], [line], "W"))
    # a seat whose six cards are all known: the widest five it can have left, every one a ten or wide
    left = card_set(parse_card(c) for c in ("TS", "TH", "TD", "TC", "QS"))
    said.append(words.card_refusal("TD", ["plays[7]: W would hold 7 cards; a hand is 6"], "W", left))
    said.append(words.played_already("TD", "W", 6))
    sequence = ["AD", "KD", "QD", "JD", "TD"]
    said.append(words.say([f"melds.W[0]: {c} is also in bell" for c in sequence], {"bell": "W"})[1])
    said.append(words.say([f"melds.W[1]: {c} is also in melds.E[0]" for c in sequence])[1])
    said.append(words.say([f"melds.W[1]: {c} is also in melds.W[0]" for c in sequence])[1])
    return [s for s in said if s]


@pytest.mark.parametrize("size", list(PANELS), ids=["800x480", "720x1280"])
def test_every_message_fits_the_strip(size):
    too_long = [(text, lines) for text in every_message() if len(lines := lines_in_strip(text, size)) > PANELS[size]]
    assert not too_long, "\n".join(f"{t!r} takes {len(lines)} lines: {lines}" for t, lines in too_long)


def test_a_line_no_saying_knows_gets_its_fields_words_not_the_engines():
    field, said = words.plain("melds.N[0]: something the engine says one day")
    assert field == "melds" and said == words.GENERAL["melds"]
    assert words.plain("the game is over: start a new game")[1] == "The game is over: start a new game"


seats = st.sampled_from("NESW")
chips = st.builds(MeldChip, st.sampled_from(list(MELD_KINDS)), st.integers(0, 3), st.integers(0, 5)).filter(
    lambda c: c.valid
)
entries = st.builds(
    Entry,
    maker=st.none() | seats,
    trump=st.none() | st.sampled_from("CDHS"),
    passed_out=st.booleans(),
    points_team=st.sampled_from(["NS", "EW"]),
    points=st.sampled_from(["", "0", "1", "81", "161", "162"]) | st.integers(0, 162).map(str),
    melds=st.dictionaries(seats, st.lists(chips, max_size=3).map(tuple), max_size=4),
    bell=st.none() | seats,
    renege=st.none() | st.just({"by": "EW", "reason": "table talk"}) | st.just({"by": "NS", "reason": ""}),
    round=st.none() | st.sampled_from([1, 2]),
    up=st.none() | st.sampled_from([card_name(c) for c in CARDS]),
)


@settings(max_examples=300, deadline=None)
@given(entries, seats)
def test_whatever_the_quick_entry_sends_the_strip_says_it_in_the_players_words(entry, dealer):
    record = {"format": "clabber-hand/1", **entry.record(dealer)}
    try:
        read_hand(record)
    except EntryError as e:
        _fields, said = words.say([str(p) for p in e.problems], record)
        assert said and not ENGINE.search(said), (said, [str(p) for p in e.problems])
        for size, most in PANELS.items():
            assert len(lines_in_strip(said, size)) <= most, (said, size)
