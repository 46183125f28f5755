-- audit_strongest_players: one row per user id of the configured strongest-players list
-- (composition.strongest_players, TEAM-COMP-3: they must all be on different teams).
CREATE TABLE IF NOT EXISTS audit_strongest_players (
    user_id  VARCHAR PRIMARY KEY,
    username VARCHAR NOT NULL            -- as the config writes it
);
