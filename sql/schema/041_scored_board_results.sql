-- scored_board_results: one row per (stage, round, board match, part), plus part = 'total'.
CREATE TABLE IF NOT EXISTS scored_board_results (
    stage        VARCHAR NOT NULL,
    round        INTEGER NOT NULL,
    board        INTEGER NOT NULL,
    team_a       VARCHAR NOT NULL,
    team_b       VARCHAR NOT NULL,
    player_a     VARCHAR NOT NULL,
    player_b     VARCHAR NOT NULL,
    part         VARCHAR NOT NULL,
    games_played INTEGER NOT NULL,
    games_due    INTEGER NOT NULL,
    a_points     DOUBLE NOT NULL,
    b_points     DOUBLE NOT NULL,
    override     VARCHAR DEFAULT '',      -- the TD ruling (forfeit, zero_draw, disqualify) that set the result,
                                          --   with its reason; '' when the games decided it
    is_unplayed  BOOLEAN DEFAULT false,   -- no game played and no TD ruling once the round window and the
                                          --   stage's window_margin_days have passed (it waits for a ruling:
                                          --   forfeit, zero_draw or a new window)
    PRIMARY KEY (stage, round, board, team_a, part)
);
