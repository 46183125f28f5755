-- scored_placings: one row per entrant of the event, in its final order (position 1 = first):
-- the place from the bracket (final, bronze match, earlier knockout rounds), then those who did
-- not go on, stage by stage (pipeline/domain/bracket.py placings). place is NULL while undecided.
-- Rewritten whole by every score run.
CREATE TABLE IF NOT EXISTS scored_placings (
    position INTEGER NOT NULL PRIMARY KEY,
    stage    VARCHAR NOT NULL,       -- the stage that decided the place (where the entrant's event ended)
    place    INTEGER,                -- 1 = winner; entrants level on the order share a place; NULL: not decided yet
    entrant  VARCHAR NOT NULL,       -- team name; the player id for individual events
    how      VARCHAR NOT NULL        -- how the place was decided, e.g. 'won the final v X, 518–442'
);
