"""The exports open cleanly in a spreadsheet (docs/td-guide.md, Exports): LibreOffice Calc, headless, imports
every CSV export of a scored tournament whose team names start with formula characters.

Checked in the converted workbook itself (the .xlsx XML): no cell is a formula, the
neutralised names are text, and every column that holds numbers in the CSV (points, ranks, a
negative points difference) is numeric, with one spreadsheet row per CSV row. LibreOffice
evaluates formulas on CSV import, so an un-neutralised name would show up as a formula cell.

Marked ``spreadsheet`` and left out of the default run (a fresh machine has no LibreOffice):
`.ci/run` installs Debian's libreoffice-calc-nogui and runs ``python -m pytest -m spreadsheet``;
without `soffice` the test fails rather than skips.
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from kits.skeleton_kit import copy_skeleton, run_skeleton

HOSTILE = {
    "Alphas": '=HYPERLINK("http://evil.example","Alphas")',
    "Betas": "+Betas",
    "Gammas": "@Gammas",
    "Deltas": "-Deltas",
}
NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def cells(xlsx: Path) -> dict[str, tuple[str, str | None, bool]]:
    """Cell reference → (type, value, is_formula) from the first sheet's XML."""
    with zipfile.ZipFile(xlsx) as z:
        sheet = z.read("xl/worksheets/sheet1.xml").decode("utf-8")
    out = {}
    for m in re.finditer(r'<c r="([A-Z]+\d+)"([^>]*?)(/>|>(.*?)</c>)', sheet, re.S):
        ref, attrs, body = m.group(1), m.group(2), m.group(4) or ""
        kind = re.search(r't="(\w+)"', attrs)
        value = re.search(r"<v>(.*?)</v>", body)
        out[ref] = (kind.group(1) if kind else "n", value.group(1) if value else None, "<f" in body)
    return out


def column(i: int) -> str:
    name = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        name = chr(65 + r) + name
    return name


@pytest.mark.spreadsheet
def test_exports_open_cleanly_in_libreoffice(tmp_path: Path) -> None:
    soffice = shutil.which("soffice")
    assert soffice, "LibreOffice (soffice) is needed: apt-get install libreoffice-calc-nogui (.ci/run does)"
    dest = copy_skeleton(tmp_path)
    for name in ("teams.csv", "pairings.csv"):
        text = (dest / name).read_text(encoding="utf-8")
        with (dest / name).open("w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            for row in csv.reader(text.splitlines()):
                w.writerow([HOSTILE.get(v, v) for v in row])
    cfg, exported = run_skeleton(dest)
    written = [p for p in exported if p.suffix == ".csv"]
    assert {p.name for p in written} >= {"standings_swiss.csv", "results_swiss.csv"}
    out = tmp_path / "xlsx"
    subprocess.run(
        [
            soffice,
            "--headless",
            "--norestore",
            f"-env:UserInstallation=file://{tmp_path / 'lo-profile'}",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(out),
            *map(str, written),
        ],
        check=True,
        capture_output=True,
        timeout=240,
    )
    for path in written:
        with path.open(encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
        book = cells(out / f"{path.stem}.xlsx")
        assert not [ref for ref, (_, _, formula) in book.items() if formula], f"{path.name}: a formula cell"
        assert max(int(re.sub(r"[A-Z]+", "", ref)) for ref in book) == len(rows), path.name
        for r, row in enumerate(rows[1:], 2):
            for c, text in enumerate(row):
                if not text:
                    continue
                kind, _, _ = book[f"{column(c)}{r}"]
                if NUMBER.match(text):
                    assert kind == "n", f"{path.name} {column(c)}{r}: {text!r} imported as {kind}, expected a number"
                else:
                    assert kind in ("s", "str", "inlineStr"), f"{path.name} {column(c)}{r}: {text!r} imported as {kind}"
        if path.name == "standings_swiss.csv":
            names = {row[rows[0].index("entrant")] for row in rows[1:]}
            assert names == {"'" + v for v in HOSTILE.values()}  # every team name neutralised, kept as text
            assert any(
                row[rows[0].index("points_difference")].startswith("-") for row in rows[1:]
            )  # a negative number stays one
