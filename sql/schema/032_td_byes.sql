-- td_byes: one row per (stage, round, entrant) with a bye from pairings.csv (a row with an empty b):
-- kind pab (pairing-allocated), full (a full-point bye), half or zero (requested byes).
CREATE TABLE IF NOT EXISTS td_byes (
    stage    VARCHAR NOT NULL,
    round    INTEGER NOT NULL,
    entrant  VARCHAR NOT NULL,
    kind     VARCHAR NOT NULL,
    line     INTEGER NOT NULL,
    PRIMARY KEY (stage, round, entrant)
);
