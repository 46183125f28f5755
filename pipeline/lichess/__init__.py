"""The one berserk adapter (``client``), the ingest of profiles, rating histories and games into DuckDB
(``request_plan`` and the modules it runs), and the backfill from the open-database dumps
(``dump_reader``, ``dump_backfill``)."""
