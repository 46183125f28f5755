-- run_previous: one row or none: the run before run $1 in the working database (pipeline_runs), with
-- its command, status and counts; a refresh run (pipeline/stages/refresh.py) publishes nothing new
-- only when this run left the published state standing.
SELECT run_id, command, status, counts FROM pipeline_runs WHERE run_id < $1 ORDER BY run_id DESC LIMIT 1
