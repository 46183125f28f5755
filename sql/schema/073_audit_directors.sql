-- audit_directors: one row per user id of the tournament's TDs (composition.tournament_directors,
-- TEAM-COMP-8: no TD is a captain, no two TDs on one team).
CREATE TABLE IF NOT EXISTS audit_directors (
    user_id  VARCHAR PRIMARY KEY,
    username VARCHAR NOT NULL
);
