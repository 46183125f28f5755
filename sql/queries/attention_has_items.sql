-- attention_has_items: whether the database has the attention_items table (a snapshot published
-- before it existed has not).
SELECT count(*) > 0 FROM duckdb_tables() WHERE table_name = 'attention_items'
