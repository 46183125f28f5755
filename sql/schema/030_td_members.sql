-- td_members: one row per registered player (teams.csv, or players.csv where entrant = player id).
-- Rewritten from the TD's file on every run.
CREATE TABLE IF NOT EXISTS td_members (
    entrant     VARCHAR NOT NULL,           -- team name; the player id for individual events
    player_id   VARCHAR NOT NULL PRIMARY KEY,
    player_name VARCHAR NOT NULL,
    board       INTEGER NOT NULL,           -- 1..N; N+1 = substitute (TEAM-COMP-5)
    title       VARCHAR NOT NULL,           -- '' | 'AGM' | 'ASGM'
    is_captain  BOOLEAN NOT NULL,
    seed_rating INTEGER
);
