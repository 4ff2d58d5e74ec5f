"""Charts drawn on the server as SVG by pygal: the standings race over the rounds, a team's points game
by game, and how often its players make trump good.

Each chart is an image at an address of its own (``<img>`` on the page), readable on a phone and on a
TV: big type, a colour-blind-safe palette on white, and a line or bar for each thing told apart by
its legend too. pygal's SVG carries its style in a ``<style>`` block, which the chart's own policy
allows by its hash; its scripts (tooltips) are taken out, and would not run in an image anyway.
"""

from __future__ import annotations

import base64
import hashlib
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

import pygal
from pygal.style import Style

from engine.text import shown

SVG = "http://www.w3.org/2000/svg"
ET.register_namespace("", SVG)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")

# Okabe and Ito's colours, which stay apart for colour-blind eyes, darkened where needed to stand
# out from white; then black and greys.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#8a6d00", "#56B4E9", "#E69F00", "#000000", "#666666")
STYLE = Style(
    background="#ffffff",
    plot_background="#ffffff",
    foreground="#111111",
    foreground_strong="#000000",
    foreground_subtle="#bbbbbb",
    opacity="1",
    opacity_hover="1",
    colors=COLOURS,
    font_family="system-ui, 'DejaVu Sans', sans-serif",
    title_font_size=22,
    label_font_size=17,
    major_label_font_size=17,
    legend_font_size=17,
    value_font_size=16,
    stroke_width=3,
)
WIDTH = 560  # the SVG's own size: about a phone's width, so its type is near life size there


def _config(**more: Any) -> dict[str, Any]:
    return {
        "style": STYLE,
        "js": [],
        "width": WIDTH,
        "height": 380,
        "legend_at_bottom": True,
        "legend_at_bottom_columns": 2,
        "truncate_legend": 22,
        "truncate_label": 12,
        "show_y_guides": True,
        "dots_size": 4,
        "print_values": False,
        "no_data_text": "No results yet",
        **more,
    }


def rendered(chart: Any) -> tuple[bytes, str]:
    """The chart's SVG without scripts, and the policy it is served with (its own style block's hash)."""
    root = ET.fromstring(chart.render())
    for parent in list(root.iter()):
        for child in list(parent):
            if child.tag in (f"{{{SVG}}}script", "script"):
                parent.remove(child)
    styles = [e.text or "" for e in root.iter(f"{{{SVG}}}style")]
    hashes = " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in styles)
    policy = "default-src 'none'; frame-ancestors 'none'" + (f"; style-src {hashes}" if hashes else "")
    return ET.tostring(root, encoding="utf-8", xml_declaration=True), policy


def race(rounds: Sequence[int], positions: dict[str, list[int]], teams: int) -> Any:
    """The standings race: each team's place after each round, first at the top."""
    many = len(positions) > 8
    chart = pygal.Line(
        **_config(
            title="Place after each round",
            inverse_y_axis=True,
            range=(1, max(teams, 2)),
            y_labels=list(range(1, max(teams, 2) + 1, 1 if teams <= 12 else 2)),
            height=380 + 26 * ((len(positions) + 1) // 2) if many else 420,
            dots_size=3,
        )
    )
    chart.x_labels = [f"R{n}" for n in rounds]
    for name, places in positions.items():
        chart.add(shown(name), places)
    return chart


def points(labels: Sequence[str], scored: Sequence[int], conceded: Sequence[int]) -> Any:
    """A team's game points and its opponents', game by game."""
    chart = pygal.Bar(**_config(title="Game points, game by game", x_label_rotation=0, legend_at_bottom_columns=2))
    chart.x_labels = list(labels)
    chart.add("Scored", list(scored))
    chart.add("Conceded", list(conceded))
    return chart


def make_rate(labels: Sequence[str], rates: dict[str, list[float | None]]) -> Any:
    """How often each player made trump good, in per cent of the hands they made trump in so far,
    after each game."""
    chart = pygal.Line(
        **_config(
            title="Made it, % of hands as maker",
            range=(0, 100),
            y_labels=[0, 25, 50, 75, 100],
            allow_interruptions=True,
        )
    )
    chart.x_labels = list(labels)
    for name, values in rates.items():
        chart.add(shown(name), list(values))
    return chart


def ratings_trend(nights: Sequence[str], ratings: dict[str, list[float | None]]) -> Any:
    """The best players' ratings night by night (each as it stood after that night's games; nothing
    before a player's first game)."""
    chart = pygal.Line(**_config(title="Rating after each night", allow_interruptions=True, dots_size=3))
    chart.x_labels = [n[5:] for n in nights]  # 2026-01-06 -> 01-06: the season's nights, short
    for name, values in ratings.items():
        chart.add(shown(name), list(values))
    return chart
