"""The backfill stage: the registered players' games from Lichess open-database dumps
(``pipeline.lichess.dump_reader``, ``pipeline.lichess.dump_backfill``) into the working database,
before the nightly runs fetch the rest from the API. ``antichess-td backfill --config T.toml
--dump FILE...`` runs it (docs/backfill.md)."""

from __future__ import annotations

import datetime as dt

from pipeline.lichess.dump_backfill import DumpReport, backfill
from pipeline.lichess.dump_reader import DumpFile
from pipeline.model import Config
from pipeline.stages import context
from pipeline.store import gateway


def backfill_stage(config: Config, inputs: context.Inputs, dumps: list[DumpFile], now: dt.datetime) -> DumpReport:
    """Scan ``dumps`` for the registered players' games, store them, move their games cursors."""
    con = gateway.connect(config.paths.database)
    try:
        return backfill(con, dumps, inputs.player_ids(), config.lichess.history_since, now)
    finally:
        con.close()


def summary_lines(report: DumpReport, dumps: list[DumpFile]) -> list[str]:
    """What the terminal shows: one line per dump file, the totals, the cursors."""
    lines = [
        f"{f['file']}: {f['scanned']:,} games, {f['matched']:,} of registered players "
        f"({f['new']:,} new, {f['already_stored']:,} again, {f['kept_api']:,} kept as the API stored them, "
        f"{f['rejected']:,} rejected ({f['queued']:,} queued to be fetched by id), "
        f"{f['before_horizon']:,} before lichess.history_since)"
        for f in report.files
    ]
    span = f"{dumps[0].month:%Y-%m}" if len(dumps) == 1 else f"{dumps[0].month:%Y-%m} to {dumps[-1].month:%Y-%m}"
    lines.append(
        f"backfill: {report.scanned:,} games scanned in {len(report.files)} dump files ({span}); "
        f"{report.matched:,} of registered players = {report.loaded:,} loaded ({report.new:,} new, "
        f"{report.already_stored:,} again, {report.kept_api:,} kept as the API stored them) + {report.rejected:,} rejected "
        f"({report.queued:,} queued to be fetched by id at the next ingest) "
        f"+ {report.before_horizon:,} created before lichess.history_since (not stored)"
    )
    lines.append(
        f"cursors: the games of {report.cursors_moved} players are fetched from the API from "
        f"{dumps[-1].end:%Y-%m-%d %H:%M} UTC on"
    )
    return lines
