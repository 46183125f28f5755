"""antichess-td: the nightly pipeline for Antichess tournament directors on Lichess.

Packages, from the top layer down; a module imports only from its own layer or below, never in a
circle (tests/test_layers.py):

- ``cli``: the ``antichess-td`` command (commands, Prefect's lifecycle, signals, console).
- ``flows`` (beside this package): the Prefect flow, sequencing the stages only.
- ``stages``: one module per step of a night (ingest, score, audit, export, attention, notify,
  the run record); each reads what it needs, hands plain values to ``domain`` and writes back.
- ``report`` (exports, posts, TRF, the static site), ``lichess`` (the one berserk adapter: the
  client, the nightly ingest and the dump backfill), ``notify`` (the webhook), and ``sim`` (the
  replay server and the demo generator, off the production path).
- ``inputs`` (tournament.toml and the TD's CSV files) and ``store`` (the one DuckDB gateway, SQL
  files, migrations, the published snapshot).
- ``domain``: the rules as pure functions; ``model``, ``errors``, ``progress`` and ``resources``
  below everything.
"""
