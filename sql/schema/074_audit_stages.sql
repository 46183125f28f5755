-- audit_stages: one row per configured stage with its kind (TEAM-COMP-8: the captain cannot sit
-- out a knockout round).
CREATE TABLE IF NOT EXISTS audit_stages (
    stage VARCHAR PRIMARY KEY,
    kind  VARCHAR NOT NULL               -- 'swiss' | 'round_robin' | 'knockout'
);
