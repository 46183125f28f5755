-- The league store (docs/td-guide.md, Running a league): each player's profile as POST /api/users
-- last answered for the league, in wire form; payload NULL: Lichess had no such account then.
-- grain: one row per Lichess user id asked for.
CREATE TABLE IF NOT EXISTS league_profiles (
    user_id    VARCHAR PRIMARY KEY,
    payload    VARCHAR,
    fetched_at TIMESTAMPTZ NOT NULL
);
