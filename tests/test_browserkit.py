"""The real-browser kit (tests/kits/browserkit.py) on small hand-written pages: it must see what the site
tests rely on it to see. A broken internal link (a missing page, file or anchor) is reported with
the page holding it; a script error is a console error; an alert is caught, and a name written
escaped shows as text without opening one; screenshots are written at both widths and a blank
page's screenshot is rejected. Headless Debian Chromium, pages over file:// and over HTTP on
127.0.0.1; nothing leaves the machine.
"""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from PIL import Image
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from kits.browserkit import (
    DEBIAN_CHROMIUM,
    MIN_PNG_BYTES,
    WIDTHS,
    Broken,
    blank_reason,
    browser_paths,
    console_errors,
    crawl,
    load,
    open_alert,
    screenshot,
    serve_folder,
    table_rows,
)

pytestmark = pytest.mark.browser

HOSTILE = "<script>alert(1)</script>"


def page(title: str, body: str, head: str = "") -> str:
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>{head}</head>\n'
        f"<body>\n{body}\n</body></html>\n"
    )


STYLESHEET = '<link rel="stylesheet" href="style.css">'


def small_site(folder: Path) -> Path:
    """index -> standings (good), rounds (good, with an anchor), a missing page, a missing CSV, a
    missing anchor; standings -> a CSV that exists, lichess.org (external), back to index; rounds
    -> index. One stylesheet, present."""
    folder.mkdir()
    (folder / "style.css").write_text("body { font-family: sans-serif; margin: 2em; }\n", encoding="utf-8")
    (folder / "standings.csv").write_text("rank,entrant\n1,Alphas\n", encoding="utf-8")
    (folder / "index.html").write_text(
        page(
            "Home",
            "<h1>Skeleton Cup</h1><ul>"
            '<li><a href="standings.html">Standings</a></li>'
            '<li><a href="rounds.html#round-1">Round 1</a></li>'
            '<li><a href="rounds.html#round-9">Round 9</a></li>'
            '<li><a href="team/gammas.html">Gammas</a></li>'
            '<li><a href="downloads/results.csv">Results</a></li>'
            "</ul>",
            STYLESHEET,
        ),
        encoding="utf-8",
    )
    (folder / "standings.html").write_text(
        page(
            "Standings",
            "<table><caption>After round 2</caption><tr><th>rank</th><th>team</th></tr>"
            '<tr><td>1</td><td><a href="https://lichess.org/@/Alice">Alphas</a></td></tr></table>'
            '<p><a href="standings.csv">CSV</a> <a href="index.html">Home</a></p>',
            STYLESHEET,
        ),
        encoding="utf-8",
    )
    (folder / "rounds.html").write_text(
        page("Rounds", '<h2 id="round-1">Round 1</h2><p>Alphas 45 – 19 Betas</p><a href="./">Home</a>', STYLESHEET),
        encoding="utf-8",
    )
    return folder


def test_crawl_over_http_reports_each_broken_internal_link_with_its_page(browser: WebDriver, tmp_path: Path) -> None:
    """Served on 127.0.0.1: the three good pages are visited (the folder URL is the index), the
    stylesheet and the CSV resolve, lichess.org is collected and not followed; a missing page and
    a missing download are the server's 404s and a missing anchor has no element, each reported
    with the page that links to it."""
    site = small_site(tmp_path / "site")
    with serve_folder(site) as base:
        found = crawl(browser, base + "index.html")
    assert sorted(found.pages) == [base + p for p in ("index.html", "rounds.html", "standings.html")]
    assert found.errors == {}
    assert found.external == {"https://lichess.org/@/Alice"}
    assert sorted(found.broken, key=lambda b: b.target) == [
        Broken(base + "index.html", base + "downloads/results.csv", "HTTP 404 File not found"),
        Broken(base + "index.html", base + "rounds.html#round-9", "no element with id 'round-9'"),
        Broken(base + "index.html", base + "team/gammas.html", "HTTP 404 File not found"),
    ]


def test_crawl_over_file_urls_reports_missing_files(browser: WebDriver, tmp_path: Path) -> None:
    """The same folder opened as files (a site opened from disk): the missing page and download
    are missing files; the anchor is missing too; the good pages have no errors."""
    site = small_site(tmp_path / "site")
    found = crawl(browser, (site / "index.html").as_uri())
    assert {b.target.rsplit("/", 1)[-1]: b.why for b in found.broken} == {
        "results.csv": f"missing file {site / 'downloads' / 'results.csv'}",
        "gammas.html": f"missing file {site / 'team' / 'gammas.html'}",
        "rounds.html#round-9": "no element with id 'round-9'",
    }
    assert {Path(p).name for p, errs in found.pages.items() if not errs} == {
        "index.html",
        "standings.html",
        "rounds.html",
    }


def test_a_script_error_and_a_missing_stylesheet_are_console_errors(browser: WebDriver, tmp_path: Path) -> None:
    """The site has no JavaScript, but the kit must see a page whose inline script throws (an
    uncaught error) and a resource that fails to load (a 404 from the server); a clean page has none."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ok</title></head><body>'
        '<a href="throws.html">throws</a> <a href="nostyle.html">no style</a></body></html>',
        encoding="utf-8",
    )
    (site / "throws.html").write_text(
        "<!doctype html><html><body><p>x</p><script>throw new Error('planted failure')</script></body></html>",
        encoding="utf-8",
    )
    (site / "nostyle.html").write_text(
        '<!doctype html><html><head><link rel="stylesheet" href="gone.css"></head><body>y</body></html>',
        encoding="utf-8",
    )
    with serve_folder(site) as base:
        found = crawl(browser, base)  # the folder: its index.html
        assert found.pages[base + "index.html"] == []
        assert len(found.pages[base + "throws.html"]) == 1
        assert "Uncaught Error: planted failure" in found.pages[base + "throws.html"][0]
        assert len(found.pages[base + "nostyle.html"]) == 1
        assert "404" in found.pages[base + "nostyle.html"][0]
        assert found.broken == [Broken(base + "nostyle.html", base + "gone.css", "HTTP 404 File not found")]
        browser.get(base)  # console_errors empties the log: a second read of a clean page is empty
        assert console_errors(browser) == []


def test_a_hostile_name_written_escaped_is_text_and_opens_no_alert(browser: WebDriver, tmp_path: Path) -> None:
    """A team named <script>alert(1)</script>: escaped (as an autoescaping template writes it) the
    browser shows the name as text and opens no alert; written raw, the alert opens and the kit
    catches it (and crawl counts it as an error), so the check cannot pass by not looking."""
    escaped = tmp_path / "escaped.html"
    escaped.write_text(page("Teams", f"<table><tr><td>{html.escape(HOSTILE)}</td></tr></table>"), encoding="utf-8")
    load(browser, escaped.as_uri())
    assert open_alert(browser) is None
    assert browser.find_element(By.TAG_NAME, "td").text == HOSTILE
    assert HOSTILE in browser.find_element(By.TAG_NAME, "body").text

    raw = tmp_path / "raw.html"
    raw.write_text(page("Teams", f"<table><tr><td>{HOSTILE}</td></tr></table>"), encoding="utf-8")
    load(browser, raw.as_uri())
    assert open_alert(browser) == "1"
    assert crawl(browser, raw.as_uri()).pages[raw.as_uri()] == ["alert opened: '1'"]


def test_screenshots_at_both_widths_and_a_blank_page_is_rejected(browser: WebDriver, tmp_path: Path) -> None:
    """A page with a heading, a table and text gives a PNG at 1280 and at 390 CSS pixels wide
    (as wide as asked, as tall as the page) that passes the blank check; an empty page's
    screenshot, and one with a single-colour background (a dark mode gone wrong), are rejected."""
    rows = "".join(f"<tr><td>{i}</td><td>Team {i}</td><td>{100 - i}</td></tr>" for i in range(1, 41))
    full = tmp_path / "full.html"
    full.write_text(
        page("Standings", f"<h1>Standings after round 7</h1><table><caption>Swiss</caption>{rows}</table>"),
        encoding="utf-8",
    )
    shots = tmp_path / "screenshots"
    browser.get(full.as_uri())
    cells = table_rows(browser, "Swiss")  # what a reader sees, to compare with a view
    assert len(cells) == 40 and cells[0] == ["1", "Team 1", "99"] and cells[-1] == ["40", "Team 40", "60"]
    assert table_rows(browser, "Knockout") == []
    for width in WIDTHS:
        png = screenshot(browser, shots / f"standings-{width}.png", width)
        with Image.open(png) as image:
            assert image.width == width
            assert image.height > 900  # forty rows: taller than one window
        assert blank_reason(png) is None
    assert sorted(p.name for p in shots.iterdir()) == ["standings-1280.png", "standings-390.png"]

    empty = tmp_path / "empty.html"
    empty.write_text("<!doctype html><html><body></body></html>", encoding="utf-8")
    browser.get(empty.as_uri())
    blank = screenshot(browser, shots / "empty-1280.png", 1280)
    reason = blank_reason(blank)
    assert reason is not None and reason.startswith("empty-1280.png: ")

    dark = tmp_path / "dark.html"
    dark.write_text('<!doctype html><html><body style="background:navy"></body></html>', encoding="utf-8")
    browser.get(dark.as_uri())
    assert blank_reason(screenshot(browser, shots / "dark-390.png", 390)) is not None


def test_the_blank_check_reads_bytes_and_colours(tmp_path: Path) -> None:
    """blank_reason without a browser: a tiny PNG fails on its size; a large one-colour PNG with a
    few scattered pixels (over MIN_PNG_BYTES, under MIN_INK) fails on its colours; with ten times
    as many it passes."""
    tiny = tmp_path / "tiny.png"
    Image.new("RGB", (10, 10), "white").save(tiny)
    assert blank_reason(tiny) == f"tiny.png: {tiny.stat().st_size} bytes < {MIN_PNG_BYTES}"

    def noisy(path: Path, inked: int) -> Path:
        image = Image.new("RGB", (1000, 400), (18, 17, 33))
        for i in range(inked):  # scattered pixels of many colours, so that the PNG does not compress to nothing
            image.putpixel((i % 1000, (i // 1000 + i * 7919) % 400), (i * 37 % 256, i * 91 % 256, 255 - i * 53 % 200))
        image.save(path)
        return path

    faint = noisy(tmp_path / "faint.png", 300)  # 300 / 400,000 = 0.075% < 0.1%
    assert faint.stat().st_size >= MIN_PNG_BYTES
    assert blank_reason(faint) == "faint.png: 0.075% of its pixels differ from its commonest colour (< 0.1%)"
    assert blank_reason(noisy(tmp_path / "inked.png", 3000)) is None


def test_without_chromium_or_its_driver_the_reason_names_the_fix(tmp_path: Path) -> None:
    """What a machine without the browser is told (the tests skip with it; with
    ANTICHESS_TD_BROWSER_REQUIRED set, as in .ci/run, they fail with it): a PATH with neither, then
    with a chromium but no chromedriver; with both, their paths."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    nowhere = tmp_path / "no-debian-chromium"
    assert browser_paths(str(bin_dir), nowhere) == (
        "chromium is not installed: the browser tests need Debian's chromium and chromium-driver "
        "(apt-get install chromium chromium-driver; .ci/run installs them)"
    )
    for name in ("chromium", "chromedriver"):
        (bin_dir / name).write_text("#!/bin/sh\n", encoding="utf-8")
        (bin_dir / name).chmod(0o755)
        if name == "chromium":
            assert browser_paths(str(bin_dir), nowhere) == (
                "chromedriver is not installed: the browser tests need Debian's chromium and chromium-driver "
                "(apt-get install chromium chromium-driver; .ci/run installs them)"
            )
    assert browser_paths(str(bin_dir), nowhere) == (str(bin_dir / "chromium"), str(bin_dir / "chromedriver"))
    if DEBIAN_CHROMIUM.is_file():  # Debian's binary behind its /usr/bin/chromium wrapper wins
        assert browser_paths(str(bin_dir)) == (str(DEBIAN_CHROMIUM), str(bin_dir / "chromedriver"))
