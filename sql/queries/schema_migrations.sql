-- schema_migrations: the migrations this database is up to date with (one row per migration).
SELECT migration FROM schema_migrations ORDER BY migration
