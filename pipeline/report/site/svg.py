"""Rating charts as SVG, drawn by our own small code (no plotting library, no script): the same
bytes for the same points, a ``<title>`` and ``aria-label`` for screen readers, and a dashed line
at the rating cap for last-board players (TEAM-CAP-1).

On the site's pages the charts are inline and take their colours from the page's CSS
(``currentColor`` and classes), so they follow the dark scheme. The board-4 cap charts are also
files of their own in the exports (``charts/cap_<user_id>.svg``, :func:`cap_chart_file`), the
same drawing with the light scheme's colours in a ``<style>`` of its own."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from markupsafe import escape

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 12, 28
FILE_STYLE = (  # templates/style.css's chart rules with the light scheme's colours, for a chart file
    "<style>svg{background:#fdfdfc;font-family:sans-serif}.frame{fill:none;stroke:#d6d6d3}"
    ".grid{stroke:#d6d6d3;stroke-width:.5}.axis{fill:#5b5b5b;font-size:11px}"
    ".rating{fill:none;stroke:#0b57a4;stroke-width:1.5}"
    ".cap{stroke:#b3541e;stroke-width:1.5;stroke-dasharray:6 4}.cap-label{fill:#b3541e}"
    ".counted{fill:#b3541e;stroke:#b3541e}.ignored{fill:#fdfdfc;stroke:#b3541e;stroke-width:1.5}</style>"
)


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _head(label: str) -> list[str]:
    """A chart's opening tag, its title and its frame."""
    w, h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    return [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" '
        f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(label)}</title>",
        f'<rect class="frame" x="{LEFT}" y="{TOP}" width="{w}" height="{h}"/>',
    ]


def rating_chart(
    title: str,
    points: Sequence[tuple[dt.date, float]],
    cap: float | None = None,
    marks: Sequence[tuple[dt.date, float, bool]] = (),
) -> str:
    """An SVG line chart of (day, rating) points; ``cap``: a dashed horizontal line; ``marks``:
    (day, rating, counted) crossings drawn as dots (filled when counted). Empty when no points."""
    if not points:
        return ""
    days = [d for d, _ in points] + [d for d, _, _ in marks]
    values = [r for _, r in points] + [r for _, r, _ in marks] + ([cap] if cap is not None else [])
    d0, d1 = min(days), max(days)
    lo, hi = min(values), max(values)
    lo, hi = (lo // 50) * 50 - 50, (hi // 50) * 50 + 100
    span_d = max((d1 - d0).days, 1)
    w, h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(d: dt.date) -> str:
        return _num(LEFT + w * (d - d0).days / span_d)

    def y(r: float) -> str:
        return _num(TOP + h * (hi - r) / (hi - lo))

    label = (
        f"{title}: {len(points)} daily ratings from {d0:%Y-%m-%d} to {d1:%Y-%m-%d}, "
        f"between {min(r for _, r in points):g} and {max(r for _, r in points):g}"
        + (f"; the cap is {cap:g}" if cap is not None else "")
    )
    out = _head(label)
    step = 100 if hi - lo <= 800 else 200
    tick = int(lo // step + 1) * step
    while tick < hi:
        out.append(f'<line class="grid" x1="{LEFT}" x2="{LEFT + w}" y1="{y(tick)}" y2="{y(tick)}"/>')
        out.append(f'<text class="axis" x="{LEFT - 4}" y="{y(tick)}" text-anchor="end" dy="4">{tick}</text>')
        tick += step
    out.append(f'<text class="axis" x="{LEFT}" y="{HEIGHT - 8}">{d0:%Y-%m-%d}</text>')
    out.append(f'<text class="axis" x="{LEFT + w}" y="{HEIGHT - 8}" text-anchor="end">{d1:%Y-%m-%d}</text>')
    if cap is not None:
        out.append(f'<line class="cap" x1="{LEFT}" x2="{LEFT + w}" y1="{y(cap)}" y2="{y(cap)}"/>')
        out.append(
            f'<text class="axis cap-label" x="{LEFT + w - 4}" y="{y(cap)}" text-anchor="end" dy="-4">cap {cap:g}</text>'
        )
    line = " ".join(f"{x(d)},{y(r)}" for d, r in points)
    out.append(f'<polyline class="rating" points="{line}"/>')
    for d, r, counted in marks:
        out.append(f'<circle class="{"counted" if counted else "ignored"}" cx="{x(d)}" cy="{y(r)}" r="4"/>')
    out.append("</svg>")
    return "".join(out)


def cap_chart(player: dict[str, Any], events: Sequence[dict[str, Any]]) -> str:
    """The board-4 cap chart of a last-board player (a row of queries/cap_chart_players) from its
    rating events (rows of queries/cap_chart_points): the rating since cap_since by UTC day against
    the cap, each crossing a dot, filled when it counts (TEAM-CAP-1..5). Empty when no events."""
    return rating_chart(
        f"Rating of {player['username']} since {player['cap_since']:%Y-%m-%d} against the cap of {player['cap']}",
        [(e["rated_at"].astimezone(dt.UTC).date(), float(e["rating"])) for e in events],
        float(player["cap"]),
        [
            (e["rated_at"].astimezone(dt.UTC).date(), float(e["rating"]), e["crossing"] == "counted")
            for e in events
            if e["crossing"]
        ],
    )


def cap_chart_file(player: dict[str, Any], events: Sequence[dict[str, Any]]) -> bytes:
    """:func:`cap_chart` as a file of its own (an SVG document with :data:`FILE_STYLE`); a player
    with no rating events gets the empty frame, saying so."""
    chart = cap_chart(player, events)
    if not chart:
        label = f"Rating of {player['username']}: no rated games stored since {player['cap_since']:%Y-%m-%d}"
        text = f"no rated games stored since {player['cap_since']:%Y-%m-%d}"
        x, y = LEFT + (WIDTH - LEFT - RIGHT) // 2, TOP + (HEIGHT - TOP - BOTTOM) // 2
        chart = "".join([*_head(label), f'<text class="axis" x="{x}" y="{y}" text-anchor="middle">{text}</text></svg>'])
    head, end, rest = chart.partition(">")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{head}{end}{FILE_STYLE}{rest}\n'.encode()
