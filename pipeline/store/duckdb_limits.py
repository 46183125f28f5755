"""The bounds of every DuckDB instance the run opens (its working database, a published snapshot
read back, a league's store, the copy made for publishing)."""

from __future__ import annotations

from typing import Any

# Why these values (docs/benchmarks.md#memory measures them):
# * memory_limit: DuckDB's default is 80 % of the machine's memory, which its buffer pool keeps
#   filling with blocks it has read or written until that limit. A tournament's database is tens of
#   MB and the demo's nightly runs within 128 MB; 256 MB leaves twice that for a 256-team season and
#   for dump backfills, and operators that need more spill to `<database>.tmp/`.
# * threads: DuckDB's default is one a core. The run's queries are small, and every thread holds
#   buffers of its own; two keep the joins and the audits parallel on the 2-core machine the
#   project is measured on, and leave a larger machine's other cores to its other work.
LIMITS: dict[str, Any] = {"memory_limit": "256MB", "threads": 2}
