"""The one berserk adapter and the ingest of games, profiles and rating histories into DuckDB."""
