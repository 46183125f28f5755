"""The rules as pure functions: values in, values out (no files, clock, environment, DuckDB, network or Prefect)."""
