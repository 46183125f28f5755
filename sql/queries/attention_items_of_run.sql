-- attention_items_of_run: the attention list run $1 computed, in the order it was shown.
SELECT key, kind, rule_id, severity, subject, sentence, action, evidence_url, stage, round, deadline,
       players, opponents, due
FROM attention_items WHERE run_id = $1 ORDER BY position
