"""The real-browser kit: headless Debian Chromium driven by selenium, and what a page test needs.

- ``browser`` (session fixture, registered by tests/conftest.py): one headless Chromium per test
  process (``--headless=new --no-sandbox --disable-gpu``), started through Debian's chromedriver
  (``Service(executable_path=shutil.which("chromedriver"))``) with Debian's Chromium as the binary,
  the browser's console log kept (``goog:loggingPrefs``) and alerts left open for the tests to see.
  No network: pages are ``file://`` URLs or served by ``serve_folder`` on 127.0.0.1. When
  ``chromium`` or ``chromedriver`` is not installed the tests that use it are skipped, with the
  reason and the fix (Debian: ``apt-get install chromium chromium-driver``; .ci/run installs both,
  and sets ANTICHESS_TD_BROWSER_REQUIRED=1 so that a missing browser fails there instead).
- ``serve_folder(folder)``: a context manager serving a folder over HTTP on 127.0.0.1 (a free
  port, a thread), yielding its base URL.
- ``console_errors(driver)``: the SEVERE entries of the browser's console since the last call
  (uncaught script errors, resources that failed to load).
- ``load(driver, url)``: open a page and wait until it is parsed (``document.readyState``
  complete) or has opened an alert: on a loaded machine ``driver.get`` can return before the
  page's scripts ran, and an alert then opens after the test looked for it.
- ``open_alert(driver)``: the text of an alert the page opened (dismissed), or None.
- ``crawl(driver, root_url)``: every page reachable by internal links from ``root_url``, each
  page's console errors and alerts, every internal link (``a[href]``, and the ``link``, ``img``
  and ``script`` resources) that does not resolve (404 from the server, a missing file, an
  ``#anchor`` no element of the page has), and the external links (never followed).
- ``table_rows(driver, caption)``: the cells of a table as shown, row by row.
- ``screenshot(driver, path, width)``: the current page, its whole height, at a window width
  (``WIDTHS``: 1280 desktop, 390 phone), as a PNG; ``blank_reason(path)`` says why a screenshot
  looks blank (too few bytes, or nearly one colour), None when it shows something.
"""

from __future__ import annotations

import functools
import http.server
import io
import itertools
import os
import shutil
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

WIDTHS = (1280, 390)  # desktop and phone, CSS pixels
HEIGHT = 900  # the window's height before a screenshot stretches it to the page
MAX_HEIGHT = 16_000  # a screenshot's tallest window (px): longer pages are cut there
MIN_PNG_BYTES = 5_000  # an empty page's PNG: ~4.5 KB at 1280 x 757, ~2.5 KB at 390; the kit's test pages 7-15 KB
MIN_INK = 0.001  # share of pixels off the commonest colour: one word ~0.04%, a heading and a line ~0.23%
# Debian's chromium package: /usr/bin/chromium is a shell wrapper (it reads /etc/chromium.d and
# prints noise on some shells); the browser it starts is this binary.
DEBIAN_CHROMIUM = Path("/usr/lib/chromium/chromium")
ARGUMENTS = ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={WIDTHS[0]},{HEIGHT}")
CONSOLE_TIMEOUT = 30.0  # s a page may take to hand its console log over (ms when idle)
_MARKER = "antichess-td browserkit: console read "
_markers = itertools.count()
REQUIRED_ENV = "ANTICHESS_TD_BROWSER_REQUIRED"  # set (non-empty): a missing browser fails, not skips (CI)
MISSING = (
    "{what} is not installed: the browser tests need Debian's chromium and chromium-driver "
    "(apt-get install chromium chromium-driver; .ci/run installs them)"
)


def browser_paths(path: str | None = None, debian: Path = DEBIAN_CHROMIUM) -> tuple[str, str] | str:
    """(chromium binary, chromedriver) as installed (Debian's binary, else `chromium` on `path`,
    default $PATH), or the reason the browser tests cannot run."""
    driver = shutil.which("chromedriver", path=path)
    binary = str(debian) if debian.is_file() else shutil.which("chromium", path=path)
    if binary is None:
        return MISSING.format(what="chromium")
    if driver is None:
        return MISSING.format(what="chromedriver")
    return binary, driver


def start_browser() -> webdriver.Chrome:
    """A headless Chromium at the desktop width, its console log kept; skips the test when
    chromium or chromedriver is not installed."""
    paths = browser_paths()
    if isinstance(paths, str):
        if os.environ.get(REQUIRED_ENV):
            pytest.fail(f"{paths} ({REQUIRED_ENV} is set)")
        pytest.skip(paths)
    binary, driver = paths
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ARGUMENTS:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.unhandled_prompt_behavior = "ignore"  # an alert stays open: open_alert reports it
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


@pytest.fixture(scope="session")
def browser() -> Iterator[webdriver.Chrome]:
    """One headless Chromium for the test process (see the module's doc); tests leave it at any
    page and width, so each test loads its own page and sets its width (screenshot does)."""
    driver = start_browser()
    try:
        yield driver
    finally:
        driver.quit()


# --------------------------------------------------------------------------- serving a folder


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """Serve `folder` over HTTP on 127.0.0.1 (a free port) from a thread; yields the base URL
    (ending in '/'). A missing file is a 404, as on any static host."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# --------------------------------------------------------------------------- console, alerts


def console_errors(driver: webdriver.Chrome, timeout: float = CONSOLE_TIMEOUT) -> list[str]:
    """The SEVERE entries of the browser console since the last call (reading the log empties it):
    uncaught script errors, resources that failed to load.

    Chromedriver hands the log over as its DevTools events arrive, which on a loaded machine can be
    after the page has loaded (the suite saw a page's script error turn up at the next page's
    read). So the page logs a marker of its own and the log is read until the marker comes back:
    the browser logs in order, so everything the page logged before it has arrived by then. A page
    that cannot run the marker (an alert open, no page) gets a plain read, and so does a page that
    opens an alert after the marker ran (its log waits behind the dialog: the caller finds the
    alert with :func:`open_alert`, as ``crawl`` does)."""
    marker = f"{_MARKER}{next(_markers)};"  # the ';': marker 1 is not a prefix of marker 12
    try:
        driver.execute_script("console.info(arguments[0])", marker)
    except WebDriverException:
        return _severe(driver.get_log("browser"))
    errors: list[str] = []
    deadline = time.monotonic() + timeout
    while True:
        entries = driver.get_log("browser")
        errors += _severe(entries)
        if any(marker in e["message"] for e in entries) or _alert_is_open(driver):
            return errors
        if time.monotonic() > deadline:
            raise AssertionError(f"the browser's console did not log the kit's marker within {timeout} s")
        time.sleep(0.02)


def _severe(entries: list[dict[str, Any]]) -> list[str]:
    return [e["message"] for e in entries if e["level"] == "SEVERE"]


def load(driver: webdriver.Chrome, url: str, timeout: float = CONSOLE_TIMEOUT) -> None:
    """``driver.get(url)``, then wait until the page is parsed (``document.readyState`` is
    ``complete``: every script in it has run, and an alert one of them opened would have stopped
    the parser) or an alert is open. Then :func:`open_alert` and :func:`console_errors` see what
    the page did, however loaded the machine."""
    driver.get(url)
    deadline = time.monotonic() + timeout
    while not _alert_is_open(driver):
        try:
            if driver.execute_script("return document.readyState") == "complete":
                return
        except WebDriverException:  # an alert opened between the two questions
            continue
        if time.monotonic() > deadline:
            raise AssertionError(f"{url} was neither parsed nor showing an alert within {timeout} s")
        time.sleep(0.02)


def _alert_is_open(driver: webdriver.Chrome) -> bool:
    """Whether the page has an alert (or confirm, prompt) open; it stays open."""
    try:
        driver.switch_to.alert  # noqa: B018 (the property asks the browser)
    except NoAlertPresentException:
        return False
    return True


def open_alert(driver: webdriver.Chrome) -> str | None:
    """The text of the alert (or confirm, prompt) the page opened, dismissed; None when none is open."""
    try:
        alert = driver.switch_to.alert
    except NoAlertPresentException:
        return None
    text = alert.text
    alert.dismiss()
    return text


def table_rows(driver: webdriver.Chrome, caption: str | None = None) -> list[list[str]]:
    """The rows of the page's first table (or the first whose caption starts with `caption`), each
    the text of its header and data cells as the browser shows them (what a reader sees, to compare
    with the views); [] when there is no such table."""
    script = """
        const tables = Array.from(document.querySelectorAll('table'));
        const t = tables.find(t => arguments[0] === null
            || (t.caption && t.caption.innerText.trim().startsWith(arguments[0])));
        return t ? Array.from(t.rows, r => Array.from(r.cells, c => c.innerText.trim())) : [];
    """
    rows: list[list[str]] = driver.execute_script(script, caption)
    return rows


# --------------------------------------------------------------------------- crawling


@dataclass(frozen=True)
class Broken:
    """An internal link that does not resolve: the page holding it, the link as resolved, why."""

    page: str
    target: str
    why: str


@dataclass
class Crawl:
    """What crawl found: each visited page's console errors (an alert counts as one), the broken
    internal links, and the external links seen (not followed)."""

    pages: dict[str, list[str]] = field(default_factory=dict)
    broken: list[Broken] = field(default_factory=list)
    external: set[str] = field(default_factory=set)

    @property
    def errors(self) -> dict[str, list[str]]:
        """The pages with console errors, and those errors."""
        return {page: errs for page, errs in self.pages.items() if errs}


_RESOURCES = (("a", "href"), ("link", "href"), ("img", "src"), ("script", "src"))
_PAGE_SUFFIXES = ("", ".html", ".htm")


def _is_internal(url: str, root: str) -> bool:
    u, r = urllib.parse.urlsplit(url), urllib.parse.urlsplit(root)
    if u.scheme == "file":
        return r.scheme == "file" and u.path.startswith(r.path.rsplit("/", 1)[0] + "/")
    return (u.scheme, u.netloc) == (r.scheme, r.netloc)


def _resolves(url: str) -> str | None:
    """Why the internal `url` (no fragment) does not resolve, None when it does."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "file":
        path = Path(urllib.request.url2pathname(parts.path))
        return None if path.is_file() else f"missing file {path}"
    request = urllib.request.Request(url, method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=10):
            return None
    except urllib.error.HTTPError as e:
        return f"HTTP {e.code} {e.reason}"


def _is_favicon_probe(driver: webdriver.Chrome, error: str) -> bool:
    """A 404 of /favicon.ico on a page that declares no icon: the browser's own guess at the
    site's root, which no page asked for (nothing a visitor sees); a declared icon that does not
    load is a broken link crawl reports."""
    if not error.split(" ", 1)[0].endswith("/favicon.ico"):
        return False
    return not driver.find_elements(By.CSS_SELECTOR, "link[rel~='icon']")


def _page_url(url: str) -> str:
    """A folder's URL as its index page's (what a static host serves for it)."""
    return url + "index.html" if urllib.parse.urlsplit(url).path.endswith("/") else url


def _is_page(url: str) -> bool:
    path = urllib.parse.urlsplit(url).path
    name = path.rsplit("/", 1)[-1]
    return any(name.endswith(s) for s in _PAGE_SUFFIXES if s) or "." not in name


def crawl(driver: webdriver.Chrome, root_url: str) -> Crawl:
    """Visit every page reachable by internal links from `root_url` (http://127.0.0.1 from
    serve_folder, or file:// under the root's folder), in the browser at its current width.
    For each page: its console errors (and any alert it opened); every internal ``a[href]``,
    ``link[href]``, ``img[src]`` and ``script[src]`` checked (a HEAD request to the local server,
    or the file), and each ``#fragment`` checked against the ids of the page it points into.
    Internal links to pages (.html, or no suffix) are followed; downloads (CSV, PNG, ...) only
    checked; external links only collected."""
    found = Crawl()
    console_errors(driver)  # what earlier pages logged is not this crawl's
    root = _page_url(urllib.parse.urldefrag(root_url).url)
    queue = [(root, root)]  # (page, the page linking to it)
    seen = {root}
    ids: dict[str, set[str]] = {}
    anchors: list[tuple[str, str, str]] = []  # (page, target page, fragment)
    while queue:
        page, referrer = queue.pop(0)
        why = _resolves(page)
        if why is not None:
            found.broken.append(Broken(referrer, page, why))
            continue
        load(driver, page)
        alert = open_alert(driver)
        errors = [e for e in console_errors(driver) if not _is_favicon_probe(driver, e)]
        if alert is None:  # one a script opened after the page was parsed (a timer, an event)
            alert = open_alert(driver)
        errors += [f"alert opened: {alert!r}"] if alert is not None else []
        found.pages[page] = errors
        ids[page] = set(
            driver.execute_script(
                "return Array.from(document.querySelectorAll('[id], a[name]'), e => e.id || e.getAttribute('name'))"
            )
        )
        checked: set[str] = set()
        for tag, attribute in _RESOURCES:
            for element in driver.find_elements(By.TAG_NAME, tag):
                raw = element.get_attribute(attribute)  # resolved against the page's URL
                if not raw:
                    continue
                target, fragment = urllib.parse.urldefrag(raw)
                target = _page_url(target)
                if not _is_internal(target, root_url):
                    if urllib.parse.urlsplit(target).scheme in ("http", "https"):
                        found.external.add(raw)
                    continue
                if fragment:
                    anchors.append((page, target, fragment))
                if target in checked or target in seen:
                    continue
                checked.add(target)
                if tag == "a" and _is_page(target):
                    seen.add(target)
                    queue.append((target, page))
                    continue
                why = _resolves(target)
                if why is not None:
                    found.broken.append(Broken(page, target, why))
    for page, target, fragment in anchors:
        if target in ids and fragment not in ids[target]:
            found.broken.append(Broken(page, f"{target}#{fragment}", f"no element with id {fragment!r}"))
    return found


# --------------------------------------------------------------------------- screenshots


def set_width(driver: webdriver.Chrome, width: int, height: int = HEIGHT) -> None:
    """Resize the window so that the page's viewport is `width` CSS pixels wide."""
    driver.set_window_size(width, height)
    inner = driver.execute_script("return window.innerWidth")
    if inner != width:  # the window's frame, if any, takes its share
        driver.set_window_size(2 * width - inner, height)


def screenshot(driver: webdriver.Chrome, path: Path, width: int) -> Path:
    """The current page at `width` CSS pixels, its whole height (up to MAX_HEIGHT), as the PNG
    `path` (its folder made); returns `path`."""
    set_width(driver, width)
    frame = HEIGHT - driver.execute_script("return window.innerHeight")
    tall = driver.execute_script("return Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)")
    set_width(driver, width, min(MAX_HEIGHT, max(HEIGHT, tall + frame)))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(driver.get_screenshot_as_png())
    return path


def blank_reason(path: Path) -> str | None:
    """Why the screenshot `path` looks blank, None when it shows something: under MIN_PNG_BYTES
    bytes, or under MIN_INK of its pixels differing from its commonest colour (a page of one
    background colour, whatever the colour scheme)."""
    data = path.read_bytes()
    if len(data) < MIN_PNG_BYTES:
        return f"{path.name}: {len(data)} bytes < {MIN_PNG_BYTES}"
    image = Image.open(io.BytesIO(data)).convert("RGB")
    pixels = image.width * image.height
    colours = image.getcolors(maxcolors=pixels) or []
    commonest = max(count for count, _ in colours)
    ink = 1 - commonest / pixels
    if ink < MIN_INK:
        return f"{path.name}: {ink:.3%} of its pixels differ from its commonest colour (< {MIN_INK:.1%})"
    return None
