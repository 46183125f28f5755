"""The one DuckDB gateway (schema, migrations, SQL files) and atomic publishing of the snapshot."""
