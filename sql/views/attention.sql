-- attention: one row per item of the newest attention list (what needs the TD), of the newest
-- 'ok' run that computed one (pipeline_runs.counts has 'attention'), in the order it is shown.
-- status: 'new' (not on the list of the run before it that computed one) or 'open'.
-- key: key
CREATE OR REPLACE VIEW attention AS
WITH latest AS (
    SELECT max(run_id) AS run_id FROM pipeline_runs
    WHERE status = 'ok' AND json_extract(counts, '$.attention') IS NOT NULL
)
SELECT i.kind, i.status, i.rule_id, i.severity, i.subject, i.sentence, i.action, i.evidence_url,
       i.stage, i.round, i.deadline, i.players, i.opponents, i.due, i.key, i.run_id
FROM attention_items i
JOIN latest USING (run_id)
ORDER BY i.position
