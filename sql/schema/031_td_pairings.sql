-- td_pairings: one row per (stage, round, entrant a, entrant b) from pairings.csv, with the
-- round window actually used ([window_start, window_end), TEAM-FMT-3 default or the TD's override).
CREATE TABLE IF NOT EXISTS td_pairings (
    stage        VARCHAR NOT NULL,
    round        INTEGER NOT NULL,
    entrant_a    VARCHAR NOT NULL,
    entrant_b    VARCHAR NOT NULL,
    window_start TIMESTAMPTZ NOT NULL,
    window_end   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (stage, round, entrant_a)
);
