-- storage_version: the storage format of the main database's file, as DuckDB tags it ('v1.0.0+'
-- for a file DuckDB 1.0 and later read), for publishing: a working database in the snapshot's
-- format is published as a byte copy, any other is rewritten.
-- grain: one row
SELECT tags['storage_version'] FROM duckdb_databases() WHERE database_name = current_database()
