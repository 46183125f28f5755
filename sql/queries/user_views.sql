-- user_views: the names of the views of the main database (not DuckDB's own), for the
-- pre-publish check that each one runs inside the snapshot alone.
SELECT view_name FROM duckdb_views() WHERE NOT internal AND database_name = current_database() ORDER BY view_name
