-- schema_columns: one row per (table or view, column) of the main database, in column order, with
-- the column's type and whether it may be NULL: what docs/data-model.md lists
-- (python -m pipeline.store.data_model). kind is 'table' or 'view'.
SELECT
    CASE WHEN v.view_name IS NULL THEN 'table' ELSE 'view' END AS kind,
    c.table_name AS name,
    c.column_name,
    c.data_type,
    c.is_nullable
FROM duckdb_columns() AS c
LEFT JOIN duckdb_views() AS v
    ON v.database_name = c.database_name AND v.schema_name = c.schema_name AND v.view_name = c.table_name
WHERE NOT c.internal AND c.database_name = current_database() AND c.schema_name = 'main'
ORDER BY kind, name, c.column_index
