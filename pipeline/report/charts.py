"""Board-4 rating-cap charts (TEAM-CAP-1..5): a player's per-game rating since ``cap_since``
against the cap, each crossing marked and annotated with its estimated RD.

Drawn with matplotlib's Agg renderer through the object API (no pyplot, no global state, no
display), into the PNG path it is given; the audit writes one per board-4 player with the
exports and links it from the finding's detail.

Drawing a chart costs about 0.2 s (the layout is fixed: matplotlib's tight layout drew each
chart twice and cost as much again), and importing matplotlib about 1 s. Each PNG carries, in a
text chunk, a digest of what it was drawn from (its arguments, this module's source and
matplotlib's version); a chart whose file already carries the digest of the same inputs is left as
it is and matplotlib is not imported. After a round every board-4 player's chart has new games
(64 charts at 64 teams), so :func:`write_cap_charts` draws the charts to redraw on every core, in
worker processes, when there are enough of them to pay for starting those. The file is replaced
atomically, so a killed run never leaves half a PNG that looks current.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import importlib.metadata
import io
import os
import pickle
import struct
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pipeline.report import exports

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "RD_LIMIT",
    "CapChart",
    "cap_figure",
    "chart_digest",
    "recorded_digest",
    "write_cap_chart",
    "write_cap_charts",
]

RD_LIMIT = 80.0  # TEAM-CAP-5: a crossing made while the RD is above 80 does not count
WIDTH_IN, HEIGHT_IN, DPI = 10.0, 4.6, 110
MARGINS = {"left": 0.075, "right": 0.985, "top": 0.855, "bottom": 0.115}  # room for the labels and titles
POOL_FROM = 8  # charts to redraw before worker processes pay for their start (about 1.5 s)

_RATING = "#3b6ea8"
_CAP = "#c0392b"
_COUNTED = "#c0392b"
_NOT_COUNTED = "#7f7f7f"
DIGEST_KEY = "antichess-td-inputs"  # the PNG text chunk holding chart_digest()
_PNG = b"\x89PNG\r\n\x1a\n"


def _rd_text(rd: float | None) -> str:
    return "RD ?" if rd is None else f"RD {rd:.0f}"


def _annotate(ax: Axes, group: list[tuple[dt.datetime, int, float | None, bool]], colour: str) -> None:
    """One label per UTC day (TEAM-CAP-3 counts days): the day's first crossing's RD, and how many
    more crossing games that day; labels of days close together are staggered upwards."""
    from matplotlib.dates import date2num  # times in as Matplotlib date numbers

    days: dict[dt.date, list[tuple[dt.datetime, int, float | None, bool]]] = {}
    for c in sorted(group):
        days.setdefault(c[0].astimezone(dt.UTC).date(), []).append(c)
    span = max((max(c[0] for c in group) - min(c[0] for c in group)).total_seconds(), 1.0)
    previous: dt.datetime | None = None
    lift = 0
    for cs in days.values():
        t, rating, rd, _ = cs[0]
        close = previous is not None and (t - previous).total_seconds() < span * 0.03
        lift = (lift + 1) % 3 if close else 0
        text = _rd_text(rd) + (f" (+{len(cs) - 1})" if len(cs) > 1 else "")
        ax.annotate(
            text,
            (date2num(t), rating),
            textcoords="offset points",
            xytext=(0, 9 + 11 * lift),
            ha="center",
            fontsize=8,
            color=colour,
        )
        previous = t


def write_cap_chart(
    path: Path,
    username: str,
    cap: int,
    points: list[tuple[dt.datetime, int]],
    crossings: list[tuple[dt.datetime, int, float | None, bool]],
    since: dt.date,
) -> Path:
    """Write :func:`cap_figure` to `path` as a PNG (folders are created, the file replaced
    atomically) and return `path`; a file drawn from the same inputs is left as it is."""
    digest = chart_digest(username, cap, points, crossings, since)
    if recorded_digest(path) == digest:
        return path
    fig = cap_figure(username, cap, points, crossings, since)
    png = io.BytesIO()
    fig.savefig(png, format="png", metadata={"Software": None, DIGEST_KEY: digest})
    exports.write_bytes(path, png.getvalue())
    return path


class CapChart(NamedTuple):
    """One chart to write: :func:`write_cap_chart`'s arguments."""

    path: Path
    username: str
    cap: int
    points: list[tuple[dt.datetime, int]]
    crossings: list[tuple[dt.datetime, int, float | None, bool]]
    since: dt.date


def write_cap_charts(wanted: Sequence[CapChart], workers: int | None = None, drawn: Path | None = None) -> list[Path]:
    """Write every chart of `wanted` (each as :func:`write_cap_chart` does) and return their paths.
    Those whose file does not carry their digest are copied from the folder `drawn` when a file of
    the same name there carries it (charts drawn ahead, while the ingest waited on the network),
    else drawn: with `POOL_FROM` or more of them, shared among `workers` processes (default: one
    per core) of ``python -m pipeline.report.charts``, new interpreters that inherit nothing of the
    caller's threads or open databases; else here."""
    stale = []
    for chart in wanted:
        digest = chart_digest(*chart[1:])
        if recorded_digest(chart.path) == digest:
            continue
        ready = drawn / chart.path.name if drawn is not None else None
        if ready is not None and recorded_digest(ready) == digest:
            exports.write_bytes(chart.path, ready.read_bytes())
        else:
            stale.append(chart)
    workers = min(workers or os.cpu_count() or 1, len(stale))
    if len(stale) < POOL_FROM or workers < 2:
        for chart in stale:
            write_cap_chart(*chart)
    else:
        _draw_in_processes(stale, workers)
    return [c.path for c in wanted]


def _draw_in_processes(stale: list[CapChart], workers: int) -> None:
    """Each worker draws every `workers`-th chart of `stale` (their lists handed over in files)."""
    with tempfile.TemporaryDirectory(prefix="antichess-td-charts-") as tmp:
        procs = []
        for i in range(workers):
            jobs = Path(tmp) / f"jobs-{i}.pickle"
            jobs.write_bytes(pickle.dumps(stale[i::workers]))
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "pipeline.report.charts", str(jobs)],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                )
            )
        failures = []
        for proc in procs:
            _, err = proc.communicate()
            if proc.returncode != 0:
                lines = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
                failures.append(f"exit {proc.returncode}: {lines[-1] if lines else 'no message'}")
        if failures:
            raise RuntimeError(f"drawing the cap charts failed in {len(failures)} worker(s): {failures[0]}")


def chart_digest(
    username: str,
    cap: int,
    points: list[tuple[dt.datetime, int]],
    crossings: list[tuple[dt.datetime, int, float | None, bool]],
    since: dt.date,
) -> str:
    """sha256 of everything a chart's pixels follow from: the arguments of :func:`cap_figure`,
    this module's source (a change to the drawing redraws every chart) and matplotlib's version."""
    h = hashlib.sha256(_drawing_source())
    h.update(repr((username, cap, since.isoformat())).encode())
    for t, rating in points:
        h.update(repr((t.astimezone(dt.UTC).isoformat(), rating)).encode())
    for t, rating, rd, counted in crossings:
        h.update(repr(("x", t.astimezone(dt.UTC).isoformat(), rating, rd, counted)).encode())
    return h.hexdigest()


@functools.cache
def _drawing_source() -> bytes:
    """What every chart's digest starts from: this module's source and matplotlib's version (read
    once: looking the version up costs about 20 ms)."""
    return Path(__file__).read_bytes() + importlib.metadata.version("matplotlib").encode()


def recorded_digest(path: Path) -> str | None:
    """The :data:`DIGEST_KEY` text of the PNG at `path` (None: no file, not a PNG, no such chunk).
    Reads the chunks before the image data only."""
    try:
        with path.open("rb") as f:
            if f.read(8) != _PNG:
                return None
            while head := f.read(8):
                if len(head) < 8:
                    return None
                size, kind = struct.unpack(">I4s", head)
                if kind in (b"IDAT", b"IEND"):
                    return None
                data = f.read(size)
                f.read(4)  # the chunk's CRC
                key, _, text = data.partition(b"\0")
                if kind == b"tEXt" and key == DIGEST_KEY.encode("latin-1"):
                    return text.decode("latin-1")
    except OSError:
        return None
    return None


def import_matplotlib() -> None:
    """Import what :func:`cap_figure` uses of matplotlib (about 1 s), ahead of time: ``antichess-td
    nightly`` does it while Prefect's temporary server starts."""
    import matplotlib.backends.backend_agg  # noqa: F401
    import matplotlib.dates  # noqa: F401
    import matplotlib.figure  # noqa: F401


def cap_figure(
    username: str,
    cap: int,
    points: list[tuple[dt.datetime, int]],
    crossings: list[tuple[dt.datetime, int, float | None, bool]],
    since: dt.date,
) -> Figure:
    """The chart as a matplotlib Figure (Agg canvas attached).

    `points`: (time, rating after the game) of each rated antichess game since `since`.
    `crossings`: (time, rating after, estimated RD or None, counted) of each game after which the
    rating was above the cap; counted ones are filled red circles, the others (TEAM-CAP-5: RD
    above 80, or unknown) open grey triangles, each annotated with its RD. With no points the
    chart says "no rated games since <since>" instead of a line.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
    from matplotlib.figure import Figure

    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    start = dt.datetime.combine(since, dt.time(), tzinfo=dt.UTC)
    pts = sorted((t, r) for t, r in points if t >= start)
    counted = [c for c in crossings if c[3]]
    fig.suptitle(f"{username}: board-4 rating since {since.isoformat()} against the {cap} cap", fontsize=12)
    if pts:
        subtitle = _draw_ratings(ax, pts, start, cap, len(crossings), len(counted))
    else:
        subtitle = _draw_no_games(ax, start, since, cap)
    ax.set_title(subtitle, fontsize=9, color="#444444")
    ax.axhline(cap, color=_CAP, linestyle="--", linewidth=1.2, label=f"cap {cap}")
    _draw_crossings(ax, counted, [c for c in crossings if not c[3]])
    locator = AutoDateLocator()
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))
    ax.set_ylabel("antichess rating")
    ax.grid(True, color="#e5e5e5", linewidth=0.6)
    ax.legend(loc="lower left", fontsize=8, framealpha=0.9)
    fig.subplots_adjust(**MARGINS)
    return fig


def _draw_ratings(
    ax: Any, pts: list[tuple[dt.datetime, int]], start: dt.datetime, cap: int, crossings: int, counted: int
) -> str:
    """The rating line from `start`, the axes fitted to it and the cap; returns the subtitle."""
    xs, ys = [t for t, _ in pts], [r for _, r in pts]
    ax.step(xs, ys, where="post", color=_RATING, linewidth=1.0, label="rating after each rated game")
    end = max(xs[-1], start + dt.timedelta(days=1))
    ax.set_xlim(start, end + (end - start) * 0.03)  # room for the last label
    lo, hi = min(min(ys), cap), max(max(ys), cap)
    ax.set_ylim(lo - 40, hi + 45)
    return (
        f"{len(pts)} rated games; {crossings} crossing game(s) above the cap, "
        f"{counted} counted (RD at most {RD_LIMIT:.0f}, TEAM-CAP-5)"
    )


def _draw_no_games(ax: Any, start: dt.datetime, since: dt.date, cap: int) -> str:
    """Thirty empty days around the cap, saying there are no games; returns the subtitle."""
    ax.set_xlim(start, start + dt.timedelta(days=30))
    ax.set_ylim(cap - 200, cap + 100)
    ax.text(
        0.5,
        0.5,
        f"no rated games since {since.isoformat()}",
        transform=ax.transAxes,
        ha="center",
        va="center",
        fontsize=14,
        color="#555555",
    )
    return "no rated antichess games stored since the cap date"


def _draw_crossings(
    ax: Any,
    counted: list[tuple[dt.datetime, int, float | None, bool]],
    not_counted: list[tuple[dt.datetime, int, float | None, bool]],
) -> None:
    """The crossing games: counted ones as filled red circles, the others as open grey triangles,
    each annotated with its RD."""
    from matplotlib.dates import date2num

    for group, is_counted in ((counted, True), (not_counted, False)):
        if not group:
            continue
        ax.scatter(
            date2num([c[0] for c in group]),
            [c[1] for c in group],
            zorder=3,
            s=46,
            marker="o" if is_counted else "^",
            facecolors=_COUNTED if is_counted else "none",
            edgecolors=_COUNTED if is_counted else _NOT_COUNTED,
            linewidths=1.4,
            label="crossing, counted" if is_counted else f"crossing, not counted (RD above {RD_LIMIT:.0f} or unknown)",
        )
        _annotate(ax, group, _COUNTED if is_counted else _NOT_COUNTED)


if __name__ == "__main__":  # a worker of write_cap_charts: draw the charts listed in the file argv[1]
    for job in pickle.loads(Path(sys.argv[1]).read_bytes()):
        write_cap_chart(*job)
