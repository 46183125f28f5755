-- run_newest: one row or none: the newest run a database records (in a published snapshot, the
-- run that published it), with when and how it ended and why.
SELECT run_id, command, status, stage, started_at, finished_at, as_of, error FROM runs ORDER BY run_id DESC LIMIT 1
