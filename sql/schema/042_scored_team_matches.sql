-- scored_team_matches: one row per pairing (stage, round, team a, team b). For individual
-- events the team columns hold the players. TEAM-SCORE-3: the sum of the boards.
CREATE TABLE IF NOT EXISTS scored_team_matches (
    stage             VARCHAR NOT NULL,
    round             INTEGER NOT NULL,
    team_a            VARCHAR NOT NULL,
    team_b            VARCHAR NOT NULL,
    a_points          DOUBLE NOT NULL,
    b_points          DOUBLE NOT NULL,
    max_points        DOUBLE NOT NULL,
    winning_points    DOUBLE NOT NULL,      -- more than half of max_points
    games_played      INTEGER NOT NULL,
    games_due         INTEGER NOT NULL,
    decided_by_game_id VARCHAR,             -- the game that took a side to winning_points
    outcome           VARCHAR NOT NULL,     -- 'a' | 'b' | 'draw' | 'pending' | 'unplayed'
    winner            VARCHAR,              -- the winning team; NULL for a draw, pending or unplayed
    override          VARCHAR DEFAULT '',   -- the TD ruling (armageddon, ARM-1) that decided it, with its reason
    tiebreak          VARCHAR DEFAULT '',   -- how a tied knockout match was decided (TEAM-KO-1: advantage point,
                                            --   captains' 3+0 games) or what it still needs (an armageddon or
                                            --   replay entered by the TD)
    PRIMARY KEY (stage, round, team_a)
);
