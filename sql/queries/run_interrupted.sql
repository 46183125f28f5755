-- run_interrupted: a run that died without saying how it ended is failed in the stage it was in.
UPDATE pipeline_runs SET status = 'failed', error = $error WHERE run_id = $run_id
