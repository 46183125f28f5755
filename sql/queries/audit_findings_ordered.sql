-- audit_findings_ordered: every finding (audit_findings), grouped by rule, errors first, then by
-- team and subject: the order `antichess-td audit` prints and audit_findings.csv keeps.
SELECT rule_id, severity, subject, team, detail, evidence_url, audit
FROM audit_findings
ORDER BY rule_id, CASE severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END, team NULLS FIRST, subject, detail
