"""The site stage: the static website of the published snapshot (pipeline/report/site), written
into ``paths.site`` (and the audits into ``paths.site_private`` unless they are public).

It reads the published snapshot only (``paths.database``, read-only), so it runs after a run has
published: the nightly flow's last step, or ``antichess-td site`` at any time (also while a run is
writing). The exports it offers for download are copied from ``paths.exports``."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence

from pipeline.domain.findings import Finding
from pipeline.model import Config
from pipeline.report.site import SiteReport, build_site

log = logging.getLogger(__name__)


def site_stage(config: Config, findings: Sequence[Finding] | None = None) -> SiteReport:
    """Build the site of the published snapshot; returns what was written. `findings`: those of the
    audit stage of the run that published it (the nightly passes its own), so that the audits are
    not evaluated a second time; None reads them from the snapshot."""
    rows = None if findings is None else [dataclasses.asdict(f) for f in findings]
    report = build_site(config, rows)
    log.info("site: %d pages in %s (largest %d KB)", report.pages, report.site, report.largest_page_bytes // 1024)
    return report


def summary_line(report: SiteReport) -> str:
    """The line a command prints for the site it wrote."""
    audits = "no audit has run yet" if report.audits is None else f"audits: {report.audits}"
    return f"site: {report.pages} pages in {report.site} (largest {report.largest_page_bytes / 1024:.0f} KB); {audits}"
