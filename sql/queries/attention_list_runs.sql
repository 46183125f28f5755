-- attention_list_runs: the 'ok' runs that computed an attention list (pipeline_runs.counts has
-- 'attention'), newest first, with their "now" (as_of).
SELECT run_id, as_of FROM pipeline_runs
WHERE status = 'ok' AND json_extract(counts, '$.attention') IS NOT NULL
ORDER BY run_id DESC
