-- run_update: a run's progress or end (one pipeline_runs row): status, the stage, the counts so far,
-- and the Prefect flow run once the flow has adopted a run the CLI opened.
UPDATE pipeline_runs
SET status = $status, stage = $stage, finished_at = $finished_at, counts = $counts::JSON, requests = $requests,
    warnings = $warnings::VARCHAR[], error = $error, flow_run_id = coalesce($flow_run_id, flow_run_id)
WHERE run_id = $run_id
