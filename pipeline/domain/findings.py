"""The audits' findings as values: :class:`Finding` (one row of ``audit_findings``), the
severities in the order a report counts them, and :func:`finding_order`, the order
``antichess-td audit`` prints and audit_findings.csv keeps.

Pure: the stages read the rows (pipeline/stages/audit_findings.py) and hand them over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    """One row of audit_findings."""

    rule_id: str
    severity: str
    subject: str
    team: str | None
    detail: str
    evidence_url: str | None
    audit: str


def finding_order(f: Finding) -> tuple[Any, ...]:
    """The order ``antichess-td audit`` prints and audit_findings.csv keeps
    (queries/audit_findings_ordered: by rule, errors first, then team, subject and detail), made
    total by the evidence and the audit's name, so findings read in parts merge into the same list."""
    return (
        f.rule_id,
        {"error": 0, "warning": 1}.get(f.severity, 2),
        (f.team is not None, f.team or ""),  # NULLS FIRST, as the query says
        *((x is None, x or "") for x in (f.subject, f.detail, f.evidence_url)),  # DuckDB's default: NULLS LAST
        f.audit,
    )
