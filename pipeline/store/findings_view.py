"""The ``audit_findings`` view, assembled from the files of ``sql/audits/``: the UNION ALL of every
audit's SELECT with the contract's columns (:data:`FINDING_COLUMNS`) and the audit's name after
them, so adding an audit is adding a file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pipeline.store.sql_files import audit_files, audit_sql

FINDING_COLUMNS = ("rule_id", "severity", "subject", "team", "detail", "evidence_url")


def findings_sql(files: Sequence[Path]) -> str:
    """The UNION ALL of `files` (audit files), each with the contract's columns and ``audit`` (the
    file's name) after them; an empty relation of those columns when there are none."""
    parts = []
    for path in files:
        name = path.stem
        if not name.isidentifier():
            raise ValueError(f"audit file {path.name!r}: expected a name of letters, digits and _")
        cols = ", ".join(FINDING_COLUMNS)
        parts.append(f"SELECT {cols}, '{name}' AS audit FROM (\n{audit_sql(path)}\n) AS {name}")
    if not parts:
        parts.append(
            "SELECT " + ", ".join(f"CAST(NULL AS VARCHAR) AS {c}" for c in (*FINDING_COLUMNS, "audit")) + " WHERE FALSE"
        )
    return "\nUNION ALL\n".join(parts)


def audit_findings_sql() -> str:
    """``CREATE VIEW audit_findings``: the UNION ALL of every audit file, in file-name order, with
    the contract's columns and ``audit`` (the file's name) after them."""
    header = (
        "-- audit_findings: one row per finding of any audit, generated from sql/audits/*.sql (file-name order)\n"
        "CREATE OR REPLACE VIEW audit_findings AS\n"
    )
    return header + findings_sql(audit_files())
