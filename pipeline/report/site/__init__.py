"""The tournament's static website, built from the published snapshot only (read-only).

:func:`build_site` reads the snapshot through the store gateway (``sql/queries/site_*.sql`` and a
few shared queries), renders the pages with Jinja2 (autoescaping on: a team named
``<script>`` is text) and writes them into ``paths.site``; the audits section goes there too
when ``[site] audits = "public"``, else into ``paths.site_private`` for the TDs only. Each folder
is built beside its final place and swapped in whole (:func:`swap_in`), so a failed build leaves
the previous site as it was.

The pages are plain HTML and one CSS file: no script, no font or resource from elsewhere, links
relative (the folder works opened from disk and on any static host), and only lichess.org game
and profile links point out. The same snapshot gives the same bytes: every list is sorted, and
the only time shown is the snapshot's own (its last successful run). What each page shows:
docs/site.md.

The modules: ``reading`` (the snapshot's rows), ``pages`` (the renderer, :class:`~pipeline.report.site.pages.Pages`),
``links`` and ``words`` (what every page prints), the page families (``front``, ``tables``,
``rounds``, ``knockout``, ``people``, ``calendars``, ``audit_pages``), ``svg`` and ``calendar``
(the charts and the .ics files, by our own small code), ``folders`` (the swap) and ``build``
(all of it, :func:`build_site`).
"""

from __future__ import annotations

from pipeline.report.site.build import SiteReport, build_site, render_site
from pipeline.report.site.folders import MARKER, swap_in

__all__ = ["MARKER", "SiteReport", "build_site", "render_site", "swap_in"]
