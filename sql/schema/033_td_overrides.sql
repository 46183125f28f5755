-- td_overrides: one row per line of the TD's overrides.csv, rewritten from the TD's file on
-- every run; each ruling also shows where it took effect (match_games.reason,
-- board_results.override, team_matches.override).
CREATE TABLE IF NOT EXISTS td_overrides (
    stage   VARCHAR NOT NULL,
    round   INTEGER NOT NULL,
    subject VARCHAR NOT NULL,
    action  VARCHAR NOT NULL,
    value   VARCHAR NOT NULL,
    reason  VARCHAR NOT NULL,
    line    INTEGER NOT NULL PRIMARY KEY,
    path    VARCHAR NOT NULL
);
