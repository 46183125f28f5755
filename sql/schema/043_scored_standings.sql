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
    cumulative       DOUBLE DEFAULT 0,      -- ACWC-Q-3: the running score after each round, summed
    seed_rating      DOUBLE,                -- ACWC-SEED-1 (the seeding view's rating): breaks ACWC-Q-3 ties last
    pool             INTEGER,               -- ACWC-C-1: the round-robin pool (two pools of 6, ranked apart)
    kashdan          DOUBLE DEFAULT 0,      -- ACWC 2022-2024 books: 4 per match won, 2 drawn, 1 lost, 0 unplayed
    byes             INTEGER DEFAULT 0,     -- byes up to the round (pairings.csv rows with an empty b)
    PRIMARY KEY (stage, after_round, entrant)
);
