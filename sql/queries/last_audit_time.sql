-- last_audit_time: when the last audit ran (audit_params.audited_at; NULL before any). Read by
-- pipeline/stages/audit.py (ahead_of_audit): a player's RDs can change tonight only for games
-- after it.
SELECT max(audited_at) AS audited_at FROM audit_params
