"""The bounds of every DuckDB instance the run opens (its working database, a published snapshot
read back, a league's store, the copy made for publishing)."""

from __future__ import annotations

from typing import Any

# Why these values (docs/benchmarks.md#memory measures them):
# * memory_limit: DuckDB's default is 80 % of the machine's memory. The limit is a ceiling against a
#   runaway query on a shared machine, not a target: DuckDB reserves more than it keeps resident
#   (counting the demo's audit_findings view, about 140 MB resident, stops with "Out of Memory"
#   under 256 MB, a 64-team season's under 512 MB), and the nightly's peak is the same under any
#   limit that lets it finish. 1 GB is twice what the largest measured season needs; operators
#   that need more spill to `<database>.tmp/` where they can.
# * threads: DuckDB's default is one a core. The run's queries are small and every thread holds
#   buffers of its own; two keep the joins and the audits parallel on the 2-core machine the
#   project is measured on, and leave a larger machine's other cores to its other work.
LIMITS: dict[str, Any] = {"memory_limit": "1GB", "threads": 2}
