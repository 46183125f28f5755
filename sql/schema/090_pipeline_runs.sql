-- pipeline_runs: one row per command run that wrote the working database (`nightly`, `ingest`, `score`),
-- numbered from 1. Written while the run holds the working database's lock: 'running' when it
-- starts, updated as each stage finishes (counts) and when it ends ('ok' just before the snapshot
-- is published, 'failed' with the error otherwise). A run killed before it could say how it ended
-- stays 'running' until the next run finds it and marks it 'failed' (error 'interrupted: ...').
-- The published snapshot carries the rows as they stood when it was published.
CREATE TABLE IF NOT EXISTS pipeline_runs (
    run_id      INTEGER NOT NULL PRIMARY KEY,
    command     VARCHAR NOT NULL,        -- nightly | ingest | score | audit
    started_at  TIMESTAMPTZ NOT NULL,    -- wall clock
    finished_at TIMESTAMPTZ,             -- NULL while running
    status      VARCHAR NOT NULL,        -- running | ok | failed
    as_of       TIMESTAMPTZ NOT NULL,    -- the run's "now": the real time, or --now when replaying a season
    stage       VARCHAR,                 -- the stage running (validate, start, ingest, score, audit, export, publish); for a failed run the stage that failed
    counts      JSON,                    -- per finished stage, e.g. {"ingest": {"requests": 3, ...}, "score": {...}}
    requests    INTEGER,                 -- Lichess requests made (ingest)
    warnings    VARCHAR[],               -- what a TD should look at (missing players, empty histories, notes)
    error       VARCHAR,                 -- why a failed run failed
    flow_run_id VARCHAR,                 -- the Prefect flow run (nightly), to find it in the Prefect UI
    pid         INTEGER                  -- the process that ran it
);
