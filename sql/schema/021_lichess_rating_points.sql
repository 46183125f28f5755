-- lichess_rating_points: one row per (user id, UTC day) with a rated antichess game:
-- the rating after the last such game of that day, as Lichess's rating history gives it.
CREATE TABLE IF NOT EXISTS lichess_rating_points (
    user_id VARCHAR NOT NULL,
    day     DATE NOT NULL,
    rating  INTEGER NOT NULL,
    PRIMARY KEY (user_id, day)
);
