-- seeding: one row per audited player: the seeding rating (ACWC-SEED-1; TEAM-COMP-4 orders the
-- boards by it). rating_at = the last rating before audit_params.seeding_at (default: the
-- player's registration time); peak = the highest rating held from seeding_peak_since to
-- seeding_at (the rating carried in at seeding_peak_since, and every post-game rating in the
-- window: intraday, from games; the daily history only where no game is stored, see
-- rating_events); seeding_rating = the mean of the two, or rating_at alone when no peak window
-- is configured. *_source says where each number came from ('games' | 'rating_history'), NULL
-- when the stored data holds no rating at all. seed_rating is what players.csv says. team as
-- shown (audited_players), team_id the entrant id.
-- key: user_id, team_id
CREATE OR REPLACE VIEW seeding AS
WITH p AS (
    SELECT ap.user_id, ap.username, ap.team, ap.team_id, ap.board, ap.seed_rating,
           coalesce(a.seeding_at, ap.registered_at) AS seeding_at, a.seeding_peak_since AS peak_since
    FROM audited_players ap CROSS JOIN audit_params a
),
at_ AS (
    SELECT p.user_id, arg_max_null(e.rating, e.rated_at) AS rating, arg_max_null(e.source, e.rated_at) AS source,
           arg_max_null(e.game_id, e.rated_at) AS game_id, max(e.rated_at) AS rated_at
    FROM p JOIN rating_events e ON e.user_id = p.user_id AND e.rated_at < p.seeding_at
    GROUP BY p.user_id
),
carried AS (
    SELECT p.user_id, arg_max_null(e.rating, e.rated_at) AS rating, arg_max_null(e.source, e.rated_at) AS source,
           arg_max_null(e.game_id, e.rated_at) AS game_id, max(e.rated_at) AS rated_at
    FROM p JOIN rating_events e ON e.user_id = p.user_id AND e.rated_at < p.peak_since
    GROUP BY p.user_id
),
in_window AS (
    SELECT p.user_id, max(e.rating) AS rating, arg_max_null(e.source, e.rating) AS source,
           arg_max_null(e.game_id, e.rating) AS game_id, arg_max_null(e.rated_at, e.rating) AS rated_at
    FROM p JOIN rating_events e ON e.user_id = p.user_id AND e.rated_at >= p.peak_since AND e.rated_at < p.seeding_at
    GROUP BY p.user_id
),
peak AS (
    SELECT p.user_id,
           CASE WHEN w.rating IS NULL OR c.rating > w.rating THEN c.rating ELSE w.rating END AS rating,
           CASE WHEN w.rating IS NULL OR c.rating > w.rating THEN c.source ELSE w.source END AS source,
           CASE WHEN w.rating IS NULL OR c.rating > w.rating THEN c.game_id ELSE w.game_id END AS game_id,
           CASE WHEN w.rating IS NULL OR c.rating > w.rating THEN c.rated_at ELSE w.rated_at END AS rated_at
    FROM p LEFT JOIN carried c USING (user_id) LEFT JOIN in_window w USING (user_id)
    WHERE p.peak_since IS NOT NULL
)
SELECT p.user_id, p.username, p.team, p.board, p.seeding_at,
       t.rating AS rating_at, t.source AS rating_at_source, t.game_id AS rating_at_game_id, t.rated_at AS rating_at_time,
       p.peak_since, k.rating AS peak_rating, k.source AS peak_source, k.game_id AS peak_game_id, k.rated_at AS peak_time,
       CASE WHEN p.peak_since IS NULL THEN CAST(t.rating AS DOUBLE) ELSE (t.rating + k.rating) / 2.0 END AS seeding_rating,
       p.seed_rating, p.team_id
FROM p LEFT JOIN at_ t USING (user_id) LEFT JOIN peak k USING (user_id);
