-- scored_standings: one row per (stage, after_round, entrant): the table after that round.
CREATE TABLE IF NOT EXISTS scored_standings (
    stage            VARCHAR NOT NULL,
    after_round      INTEGER NOT NULL,
    rank             INTEGER NOT NULL,
    entrant          VARCHAR NOT NULL,
    matches_played   INTEGER NOT NULL,
    match_points     DOUBLE NOT NULL,
    points_scored    DOUBLE NOT NULL,
    points_conceded  DOUBLE NOT NULL,
    points_difference DOUBLE NOT NULL,
    median_buchholz  DOUBLE NOT NULL,
    PRIMARY KEY (stage, after_round, entrant)
);
