-- run_update: a run's progress or end (one pipeline_runs row): status, the stage, the counts so far.
UPDATE pipeline_runs
SET status = $status, stage = $stage, finished_at = $finished_at, counts = $counts::JSON, requests = $requests,
    warnings = $warnings::VARCHAR[], error = $error
WHERE run_id = $run_id
