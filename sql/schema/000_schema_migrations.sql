-- schema_migrations: one row per file of sql/migrations/ this database is up to date with.
-- A database created by this release gets the final CREATEs of sql/schema/ and one row per
-- migration with how = 'created' (nothing to run); an existing database gets how = 'applied' for
-- each migration run on it, in the same transaction as the change, so each runs once
-- (pipeline/store/gateway.py migrate).
CREATE TABLE IF NOT EXISTS schema_migrations (
    migration  VARCHAR PRIMARY KEY,     -- the file's name without .sql, e.g. '001_board_results_override'
    how        VARCHAR NOT NULL,        -- 'created' | 'applied'
    applied_at TIMESTAMPTZ NOT NULL,    -- wall clock
    CHECK (how IN ('created', 'applied'))
);
