"""CSV exports (docs/td-guide.md, Exports): header row, UTC ISO-8601 times, spreadsheet formulas neutralised."""

from __future__ import annotations

import csv
import datetime as dt
import os
import stat
from pathlib import Path

import pytest

from pipeline.report.exports import write_csv


@pytest.mark.parametrize("name", ['=HYPERLINK("http://x")', "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"])
def test_formula_prefixes_are_neutralised(tmp_path: Path, name: str) -> None:
    path = tmp_path / "s.csv"
    write_csv(path, ("entrant", "points_difference"), [(name, -12.0)])
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["entrant", "points_difference"]
    assert rows[1] == ["'" + name, "-12"]  # text gets the apostrophe; a negative number stays a number


def test_times_are_utc_iso_8601_and_plain_text_is_untouched(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    t = dt.datetime(2026, 3, 4, 18, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    write_csv(path, ("a", "b", "c", "d"), [("Forced Captures", t, 1.5, None)])
    assert path.read_text(encoding="utf-8").splitlines()[1] == "Forced Captures,2026-03-04T16:00:00Z,1.5,"


def test_write_is_atomic_no_temp_files_left(tmp_path: Path) -> None:
    write_csv(tmp_path / "s.csv", ("a",), [("x",)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.csv"]


def test_markdown_cells_are_neutralised_and_escaped() -> None:
    from pipeline.report.exports import markdown_table

    lines = markdown_table(["team", "diff"], [("=HYPERLINK(1)|x", -6.0)])
    assert lines == ["| team | diff |", "|---|---|", "| '=HYPERLINK(1)\\|x | -6 |"]


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_exports_get_the_usual_permissions_under_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    """Exports: a CSV or Markdown export is created like any new file (0666 less the umask),
    as readable as the charts beside it, not 0600 as a bare temp file would leave it."""
    from pipeline.report.exports import write_text

    old = os.umask(umask)
    try:
        write_csv(tmp_path / "s.csv", ("a",), [("x",)])
        write_text(tmp_path / "round_1.md", "# r1\n")
    finally:
        os.umask(old)
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()} == {"s.csv": mode, "round_1.md": mode}


def test_lines_end_in_lf_and_a_line_break_in_a_cell_stays_quoted(tmp_path: Path) -> None:
    """Exports: LF line ends (a proposal appended to a TD's pairings.csv must not bring CRs);
    a cell holding a line break is quoted, so it reads back as one cell."""
    path = tmp_path / "s.csv"
    write_csv(path, ("a", "b"), [("x", "two\r\nlines"), ("y", 1)])
    assert path.read_bytes() == b'a,b\nx,"two\r\nlines"\ny,1\n'
    with path.open(newline="", encoding="utf-8") as f:
        assert list(csv.reader(f)) == [["a", "b"], ["x", "two\r\nlines"], ["y", "1"]]
