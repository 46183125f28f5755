"""Building the site: read the snapshot, render every page family, swap the folders in."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.errors import InputError
from pipeline.model import Config
from pipeline.report.site import audit_pages, calendars, front, knockout, people, rounds, tables
from pipeline.report.site.folders import MARKER, check_owned, swap_in
from pipeline.report.site.pages import Pages
from pipeline.report.site.reading import Snapshot, read_snapshot
from pipeline.store import gateway


@dataclass(frozen=True)
class SiteReport:
    """What a build wrote: the public folder and its pages, the largest page's bytes, and where
    the audits went (``None``: no audit has run yet)."""

    site: Path
    pages: int
    files: int
    largest_page_bytes: int
    audits: Path | None


def build_site(config: Config, findings: Sequence[dict[str, Any]] | None = None) -> SiteReport:
    """Build the site of `config`'s published snapshot (``paths.database``, opened read-only) into
    ``paths.site`` (and the audits into ``paths.site_private`` unless ``[site] audits = "public"``).

    Raises :class:`~pipeline.errors.InputError` when there is no snapshot yet, or when a target
    folder holds files a site build did not write (it is replaced whole). `findings`: the rows of
    audit_findings (in its order) as the audit that ran just before computed them, or None to read
    them from the snapshot."""
    paths = config.paths
    assert paths.site is not None and paths.site_private is not None
    if not paths.database.exists():
        raise InputError(
            config.path,
            "key 'paths.database'",
            f"{paths.database} does not exist yet: run `antichess-td nightly` (or score) first",
        )
    for key, folder in (("paths.site", paths.site), ("paths.site_private", paths.site_private)):
        check_owned(config, key, folder)
    con = gateway.connect(paths.database, read_only=True)
    try:
        with ThreadPoolExecutor(1) as pool:
            # the audit_findings view (every audit evaluated) on a second cursor while the pages
            # render: DuckDB lets go of the GIL while it runs a query
            later = None if findings is not None else pool.submit(_findings, con.cursor())
            snap = read_snapshot(config, con, findings, read_findings=False)
            files, private = render_site(config, snap, None if later is None else later.result)
    finally:
        con.close()
    swap_in(paths.site, files)
    audits_at: Path | None = None
    if snap.audited:
        if config.site.audits == "public":
            audits_at = paths.site / "audits" / "index.html"
            if not private and paths.site_private.is_dir() and (paths.site_private / MARKER).is_file():
                shutil.rmtree(paths.site_private)  # the audits moved into the public site
        else:
            audits_at = paths.site_private / "index.html"
    if private:  # the audits (when private) and the attention page
        swap_in(paths.site_private, private)
    pages = {k: v for k, v in files.items() if k.endswith(".html")}
    return SiteReport(
        paths.site,
        len(pages),
        len(files),
        max((len(v) for v in pages.values()), default=0),
        audits_at,
    )


def _findings(cursor: Any) -> list[dict[str, Any]]:
    try:
        return gateway.query(cursor, "queries/audit_findings_ordered").to_dicts()
    finally:
        cursor.close()


def render_site(
    config: Config, snap: Snapshot, read_findings: Callable[[], list[dict[str, Any]]] | None = None
) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """(public files, private files) by relative path: pure apart from reading the exports to copy
    (and calling `read_findings` for the audits, last, when the snapshot's are not read yet)."""
    pages = Pages(config, snap)
    exports = config.paths.exports
    wanted = ("standings_*.csv", "results_*.csv", "placings.csv", "*.trf", "games.parquet")
    downloads = (
        sorted({p.name for pattern in wanted for p in exports.glob(pattern) if p.is_file()}) if exports.is_dir() else []
    )
    files: dict[str, bytes] = {f"downloads/{n}": (exports / n).read_bytes() for n in downloads}
    private: dict[str, bytes] = {}
    public_audits = config.site.audits == "public"
    audits_csv = exports / "audit_findings.csv"
    has_audits_csv = snap.audited and audits_csv.is_file()
    front.home(pages, downloads)
    rounds.game_rows(pages)
    tables.standings_pages(pages)
    rounds.round_pages(pages)
    tables.crosstable(pages)
    knockout.bracket_page(pages)
    people.people(pages)
    front.rulings(pages)
    calendars.calendars(pages)
    front.downloads(pages, downloads, "audits/audit_findings.csv" if public_audits and has_audits_csv else None)
    if snap.audited:
        if snap.findings is None:
            assert read_findings is not None
            snap.findings = read_findings()
        section = audit_pages.audits(pages, public_audits)
        if public_audits:
            files.update(section)
            if has_audits_csv:
                files["audits/audit_findings.csv"] = audits_csv.read_bytes()
        else:
            private.update(section)
            private["style.css"] = STYLESHEET.read_bytes()
            private["favicon.svg"] = ICON.read_bytes()
            if has_audits_csv:
                private["audit_findings.csv"] = audits_csv.read_bytes()
    if snap.attention is not None:  # the TDs' own page, whatever the audits' switch
        private.update(audit_pages.attention_page(pages, index="index.html" not in private))
        private["style.css"] = STYLESHEET.read_bytes()
        private["favicon.svg"] = ICON.read_bytes()
    files.update(pages.files)
    files["style.css"] = STYLESHEET.read_bytes()
    files["favicon.svg"] = ICON.read_bytes()  # declared by every page: no browser asks for a missing /favicon.ico
    return dict(sorted(files.items())), dict(sorted(private.items()))


STYLESHEET = Path(__file__).resolve().parent / "templates" / "style.css"
ICON = STYLESHEET.with_name("favicon.svg")
