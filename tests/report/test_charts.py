"""The board-4 cap charts (TEAM-CAP-1..5) as the exports write them (``charts/cap_<user_id>.svg``):
the audits page's chart (pipeline/report/site/svg.py) as an SVG document of its own, its colours
in a ``<style>`` of its own, the crossings marked, the same bytes for the same rows."""

from __future__ import annotations

import datetime as dt
from typing import Any
from xml.etree import ElementTree

from pipeline.report.site import svg

NS = "{http://www.w3.org/2000/svg}"
T0 = dt.datetime(2025, 1, 5, 12, tzinfo=dt.UTC)
PLAYER = {
    "user_id": "forkblitz-97",
    "username": "Forkblitz-97",
    "cap": 2200,
    "cap_since": dt.datetime(2025, 1, 1, tzinfo=dt.UTC),
}


def events() -> list[dict[str, Any]]:
    """60 days of ratings; two crossings, one counted, one not (RD 116, TEAM-CAP-5)."""
    crossing = {7: ("unknown", 116.0), 40: ("counted", 47.2)}
    return [
        {
            "user_id": "forkblitz-97",
            "rated_at": T0 + dt.timedelta(days=i),
            "rating": 2201 + i % 3 if i in crossing else 2150 + (i * 7) % 40,
            "rd_est": crossing.get(i, (None, 60.0))[1],
            "crossing": crossing.get(i, (None, None))[0],
        }
        for i in range(60)
    ]


def test_the_chart_file_is_an_svg_document_with_the_cap_and_the_crossings_marked() -> None:
    data = svg.cap_chart_file(PLAYER, events())
    assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<svg ')
    root = ElementTree.fromstring(data)
    assert root.tag == f"{NS}svg" and root.get("role") == "img"
    assert root.findtext(f"{NS}title", "").startswith(
        "Rating of Forkblitz-97 since 2025-01-01 against the cap of 2200: 60 daily ratings from 2025-01-05"
    )
    assert ".rating{fill:none;" in root.findtext(f"{NS}style", "")  # the colours travel with the file
    assert [c.get("class") for c in root.iter(f"{NS}circle")] == ["ignored", "counted"]
    assert [line.get("class") for line in root.iter(f"{NS}line")].count("cap") == 1
    assert len(root.findall(f"{NS}polyline")) == 1


def test_the_chart_file_is_the_audits_pages_chart_and_the_same_rows_give_the_same_bytes() -> None:
    chart = svg.cap_chart(PLAYER, events())
    data = svg.cap_chart_file(PLAYER, events())
    assert data == svg.cap_chart_file(PLAYER, events())
    head, _, body = chart.partition(">")
    assert data.decode() == f'<?xml version="1.0" encoding="UTF-8"?>\n{head}>{svg.FILE_STYLE}{body}\n'


def test_a_player_without_rating_events_gets_a_chart_that_says_so() -> None:
    assert svg.cap_chart(PLAYER, []) == ""  # the audits page shows none
    root = ElementTree.fromstring(svg.cap_chart_file(PLAYER, []))
    assert root.findtext(f"{NS}title") == "Rating of Forkblitz-97: no rated games stored since 2025-01-01"
    assert [t.text for t in root.iter(f"{NS}text")] == ["no rated games stored since 2025-01-01"]
