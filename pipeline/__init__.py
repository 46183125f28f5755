"""antichess-td: the nightly pipeline for Antichess tournament directors on Lichess.

Domain modules (``timecontrol``, ``config``, ``inputs``, ``linking``, ``scoring``,
``standings``) are pure. Adapters: ``lichess`` (the only module importing berserk),
``store`` (the only module opening DuckDB), ``replay`` (the local Lichess replay server).
"""
