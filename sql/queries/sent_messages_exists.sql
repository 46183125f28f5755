-- sent_messages_exists: one row, the number of `sent_messages` tables in the database (0 or 1): a
-- dry run reads a working database read-only and cannot create the table if it predates it.
SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'sent_messages'
