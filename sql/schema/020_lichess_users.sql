-- lichess_users: one row per Lichess user id, typed from raw_users.
CREATE TABLE IF NOT EXISTS lichess_users (
    user_id          VARCHAR PRIMARY KEY,
    username         VARCHAR NOT NULL,
    created_at       TIMESTAMPTZ,           -- NULL only for closed accounts (Lichess hides it)
    title            VARCHAR,
    is_bot           BOOLEAN NOT NULL,
    is_closed        BOOLEAN NOT NULL,      -- Lichess 'disabled'
    tos_violation    BOOLEAN NOT NULL,
    antichess_games  INTEGER NOT NULL,      -- rated antichess games (perfs.antichess.games)
    antichess_rating INTEGER,
    antichess_rd     INTEGER,               -- live RD, decayed to fetched_at
    is_provisional   BOOLEAN,
    fetched_at       TIMESTAMPTZ NOT NULL
);
