-- rating_estimates: one row per (game_id, user_id) of a rated antichess game an audit reads the RD
-- of (queries/rd_tracked_players: a last-board player's every game, TEAM-CAP-5; any other
-- registered player's games before their TEAM-ELIG-7 due time; none in an individual event):
-- the rating before and after the game (rating + ratingDiff) and the
-- post-game rating deviation (RD) reconstructed from the games' ratingDiffs by pipeline/domain/rd.py,
-- since Lichess publishes no RD history. Kept up to date by pipeline/stages/ratings.py write_rating_estimates,
-- which rates only the games after its cursor when nothing before it changed (else all of them),
-- in one transaction (reruns are idempotent).
CREATE TABLE IF NOT EXISTS rating_estimates (
    game_id       VARCHAR NOT NULL,
    user_id       VARCHAR NOT NULL,
    played_at     TIMESTAMPTZ NOT NULL,   -- the game's last move (when Lichess rated it)
    rating_before INTEGER NOT NULL,       -- pre-game rating as the game shows it
    rating_after  INTEGER NOT NULL,       -- rating_before + ratingDiff
    rd_est        DOUBLE,                 -- post-game RD estimate; NULL when unknown
    rd_low        DOUBLE NOT NULL,        -- the interval the true post-game RD lies in under the
    rd_high       DOUBLE NOT NULL,        --   model (45..500 when nothing is known)
    rd_method     VARCHAR NOT NULL,       -- 'estimated' | 'carried' | 'unknown'
    PRIMARY KEY (game_id, user_id),
    CHECK (rd_method IN ('estimated', 'carried', 'unknown')),
    CHECK (rd_low <= rd_high),
    CHECK ((rd_est IS NULL) = (rd_method = 'unknown'))
);
