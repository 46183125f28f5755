-- runs: one row per run that wrote the database (nightly, ingest, score), newest last: when, how it
-- ended and why, what each stage counted. duration_s is NULL while a run is running.
-- errors: what the TD must fix although the run went on (a config that contradicts the rules,
-- e.g. knockout rounds that do not match TEAM-FMT-1's qualifiers), from the score stage's counts.
-- key: run_id
CREATE OR REPLACE VIEW runs AS
SELECT run_id, command, started_at, finished_at, status, as_of, stage, counts, requests, warnings,
       coalesce(json_extract_string(counts, '$.score.errors[*]'), []) AS errors, error,
       round(epoch(finished_at) - epoch(started_at), 1) AS duration_s, flow_run_id, pid
FROM pipeline_runs
ORDER BY run_id;
