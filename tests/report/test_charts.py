"""The board-4 cap charts (TEAM-CAP-1..5) are drawn again only when what they show changed: each
PNG records a digest of its inputs in a text chunk (pipeline/report/charts.py), and a night whose
chart inputs are the same leaves the file as it is (drawing one costs about 0.2 s). Many charts to
redraw are shared among worker processes, which draw exactly what this process would."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from PIL import Image

from pipeline.report import charts

T0 = dt.datetime(2025, 1, 5, 12, tzinfo=dt.UTC)
POINTS = [(T0 + dt.timedelta(days=i), 2150 + (i * 7) % 60) for i in range(30)]
CROSSINGS = [(T0 + dt.timedelta(days=7), 2201, 116.0, False)]
SINCE = dt.date(2025, 1, 1)


def stamp(path: Path) -> tuple[int, int]:
    """The file's inode and modification time: an atomic rewrite changes the inode."""
    st = path.stat()
    return st.st_ino, st.st_mtime_ns


def test_the_png_records_the_digest_of_its_inputs(tmp_path: Path) -> None:
    path = charts.write_cap_chart(tmp_path / "p.png", "Forkblitz-97", 2200, POINTS, CROSSINGS, SINCE)
    digest = charts.chart_digest("Forkblitz-97", 2200, POINTS, CROSSINGS, SINCE)
    assert charts.recorded_digest(path) == digest
    with Image.open(path) as img:  # an independent PNG reader finds the same text chunk
        assert img.text[charts.DIGEST_KEY] == digest  # type: ignore[attr-defined]
        assert img.size == (1100, 506)


def test_the_same_inputs_leave_the_chart_alone_and_a_change_redraws_it(tmp_path: Path) -> None:
    path = charts.write_cap_chart(tmp_path / "p.png", "Forkblitz-97", 2200, POINTS, CROSSINGS, SINCE)
    before = stamp(path)
    charts.write_cap_chart(path, "Forkblitz-97", 2200, list(POINTS), list(CROSSINGS), SINCE)
    assert stamp(path) == before
    # TEAM-CAP-5: the crossing's RD estimate fell to 47, so it now counts: the chart changes
    counted = [(T0 + dt.timedelta(days=7), 2201, 47.0, True)]
    charts.write_cap_chart(path, "Forkblitz-97", 2200, POINTS, counted, SINCE)
    assert stamp(path) != before
    assert charts.recorded_digest(path) == charts.chart_digest("Forkblitz-97", 2200, POINTS, counted, SINCE)
    for changed in (
        ("Forkblitz-97", 2150, POINTS, counted, SINCE),  # another cap
        ("Forkblitz-97", 2150, [*POINTS, (T0 + dt.timedelta(days=31), 2170)], counted, SINCE),  # a new game
        ("Forkblitz-97", 2150, POINTS, counted, dt.date(2025, 1, 2)),  # another cap_since
    ):
        assert charts.chart_digest(*changed) != charts.recorded_digest(path)


def test_a_file_without_a_digest_or_cut_short_is_drawn_again(tmp_path: Path) -> None:
    path = tmp_path / "p.png"
    charts.cap_figure("Forkblitz-97", 2200, POINTS, CROSSINGS, SINCE).savefig(path, format="png")
    assert charts.recorded_digest(path) is None  # drawn without the text chunk
    charts.write_cap_chart(path, "Forkblitz-97", 2200, POINTS, CROSSINGS, SINCE)
    digest = charts.recorded_digest(path)
    assert digest == charts.chart_digest("Forkblitz-97", 2200, POINTS, CROSSINGS, SINCE)
    whole = path.read_bytes()
    path.write_bytes(whole[:40])  # a copy cut short inside the header chunks
    assert charts.recorded_digest(path) is None
    charts.write_cap_chart(path, "Forkblitz-97", 2200, POINTS, CROSSINGS, SINCE)
    assert path.read_bytes() == whole  # drawn again, byte for byte as before
    path.write_bytes(b"not a png")
    assert charts.recorded_digest(path) is None
    assert charts.recorded_digest(tmp_path / "missing.png") is None


def test_charts_drawn_by_worker_processes_are_byte_for_byte_those_drawn_here(tmp_path: Path) -> None:
    n = charts.POOL_FROM + 1  # enough to be drawn by worker processes
    away = [
        charts.CapChart(tmp_path / "away" / f"c{i}.png", f"P{i}", 2200, POINTS[: 10 + i], CROSSINGS, SINCE)
        for i in range(n)
    ]
    here = [charts.CapChart(tmp_path / "here" / c.path.name, *c[1:]) for c in away]
    assert charts.write_cap_charts(away, workers=2) == [c.path for c in away]
    assert charts.write_cap_charts(here, workers=1) == [c.path for c in here]
    for a, h in zip(away, here, strict=True):
        assert a.path.read_bytes() == h.path.read_bytes()
        assert charts.recorded_digest(a.path) == charts.chart_digest(*a[1:])


def test_a_worker_that_fails_fails_the_charts_in_one_line(tmp_path: Path) -> None:
    wanted = [
        charts.CapChart(tmp_path / f"c{i}.png", f"P{i}", 2200, POINTS, CROSSINGS, SINCE)
        for i in range(charts.POOL_FROM)
    ]
    wanted[3].path.mkdir()  # a folder where the chart goes: it cannot be replaced
    with pytest.raises(
        RuntimeError, match=r"^drawing the cap charts failed in 1 worker\(s\): exit 1: IsADirectoryError: "
    ) as e:
        charts.write_cap_charts(wanted, workers=2)
    assert "\n" not in str(e.value)


def test_a_chart_drawn_ahead_from_the_same_inputs_is_copied_and_a_stale_one_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """export.draw_cap_charts_ahead draws into a folder of its own while the ingest waits on the
    network; the export then copies each chart there whose digest is the one it wants, and draws
    the others (a game that arrived after the drawing changed its inputs)."""
    ahead = [
        charts.CapChart(tmp_path / "ahead" / f"c{i}.png", f"P{i}", 2200, POINTS, CROSSINGS, SINCE) for i in range(2)
    ]
    charts.write_cap_charts(ahead, workers=1)
    later = [*POINTS, (T0 + dt.timedelta(days=31), 2170)]  # P1 played once more after the drawing
    wanted = [
        charts.CapChart(tmp_path / "exports" / "c0.png", "P0", 2200, POINTS, CROSSINGS, SINCE),
        charts.CapChart(tmp_path / "exports" / "c1.png", "P1", 2200, later, CROSSINGS, SINCE),
    ]
    drawn: list[str] = []
    draw = charts.write_cap_chart
    monkeypatch.setattr(charts, "write_cap_chart", lambda path, *args: drawn.append(path.name) or draw(path, *args))
    charts.write_cap_charts(wanted, workers=1, drawn=tmp_path / "ahead")
    assert drawn == ["c1.png"]
    assert wanted[0].path.read_bytes() == ahead[0].path.read_bytes()
    assert charts.recorded_digest(wanted[1].path) == charts.chart_digest(*wanted[1][1:])
