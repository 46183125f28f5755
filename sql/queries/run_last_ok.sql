-- run_last_ok: the newest run that ended well (the one a published snapshot came from).
SELECT run_id, command, started_at, finished_at, as_of FROM runs WHERE status = 'ok' ORDER BY run_id DESC LIMIT 1
