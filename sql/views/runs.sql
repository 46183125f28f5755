-- runs: one row per run that wrote the database (nightly, ingest, score), newest last: when, how it
-- ended and why, what each stage counted (issue 8). duration_s is NULL while a run is running.
CREATE OR REPLACE VIEW runs AS
SELECT run_id, command, started_at, finished_at, status, as_of, stage, counts, requests, warnings, error,
       round(epoch(finished_at) - epoch(started_at), 1) AS duration_s, flow_run_id, pid
FROM pipeline_runs
ORDER BY run_id;
