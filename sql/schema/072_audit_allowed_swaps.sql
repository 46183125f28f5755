-- audit_allowed_swaps: one row per (team, board_a < board_b) the TDs allow to play in either
-- order (composition.allowed_swaps, TEAM-COMP-4).
CREATE TABLE IF NOT EXISTS audit_allowed_swaps (
    team    VARCHAR NOT NULL,
    board_a INTEGER NOT NULL,
    board_b INTEGER NOT NULL,
    PRIMARY KEY (team, board_a, board_b)
);
