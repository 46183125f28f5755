-- audit_has_run: whether an audit wrote its parameters (every audit CROSS JOINs audit_params:
-- before the first audit run audit_findings is empty, not clean).
SELECT count(*) > 0 AS audited FROM audit_params
