-- run_insert: a run starts (one new pipeline_runs row, status 'running').
INSERT INTO pipeline_runs (run_id, command, started_at, status, as_of, counts, requests, warnings, flow_run_id, pid)
VALUES ($run_id, $command, $started_at, 'running', $as_of, '{}', 0, [], $flow_run_id, $pid)
