-- site_attention: the newest attention list (the attention view) for the TDs' private page, in
-- the order it is shown; empty in a snapshot published before the list existed.
SELECT kind, status, rule_id, severity, subject, sentence, action, evidence_url
FROM attention
