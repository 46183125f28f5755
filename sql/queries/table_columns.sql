-- table_columns: one row per (base table, column) of the main database, in column order, for the
-- per-table content checksums (store.table_checksums) that compare a disturbed run's database
-- with an undisturbed one's (the fault-injection suite). Views are left out: they are
-- computed from these tables.
SELECT t.table_name, c.column_name
FROM duckdb_tables() AS t
JOIN duckdb_columns() AS c USING (database_name, schema_name, table_name)
WHERE NOT t.internal AND t.database_name = current_database() AND t.schema_name = 'main'
ORDER BY t.table_name, c.column_index
