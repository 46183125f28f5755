-- scored_rounds: one row per (stage, round) scored into scored_match_games / scored_board_results /
-- scored_team_matches: a fingerprint of everything those rows were computed from (the scoring
-- version, pipeline/domain/scoring.py SCORING_VERSION; the stage's config, the TD's files, the
-- round's lineups and games, which windows had closed). Written in the same transaction as the
-- rows; a night relinks and rescores only the rounds whose fingerprint changed, and gives exactly
-- the rows a full rescore would.
CREATE TABLE IF NOT EXISTS scored_rounds (
    stage       VARCHAR NOT NULL,
    round       INTEGER NOT NULL,
    fingerprint VARCHAR NOT NULL,           -- sha256 hex
    PRIMARY KEY (stage, round)
);
