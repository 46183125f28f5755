-- audit_captains: one row per (team, captain seen from then on): the captain teams.csv named,
-- recorded by each audit run when it differs from the team's last recorded captain (TEAM-COMP-8:
-- a team may change its captain once). Kept across runs; the first row is the registered captain.
CREATE TABLE IF NOT EXISTS audit_captains (
    team       VARCHAR NOT NULL,
    player_id  VARCHAR NOT NULL,
    seen_from  TIMESTAMPTZ NOT NULL,     -- the audit run that first saw this captain
    PRIMARY KEY (team, seen_from)
);
