-- attention_counts_latest: one row or none: the counts of the newest attention list (what needs
-- the TD: items, how many new, items by kind), of the newest 'ok' run that computed one, as the
-- attention view chooses its run.
SELECT run_id, CAST(json_extract(counts, '$.attention') AS VARCHAR) AS attention FROM runs
WHERE status = 'ok' AND json_extract(counts, '$.attention') IS NOT NULL
ORDER BY run_id DESC LIMIT 1
