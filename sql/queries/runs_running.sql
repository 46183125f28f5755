-- runs_running: runs still marked 'running'; read by a run holding the lock, so every one of them is dead.
SELECT run_id FROM pipeline_runs WHERE status = 'running' ORDER BY run_id
