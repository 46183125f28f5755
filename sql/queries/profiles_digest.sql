-- profiles_digest: one row: a digest of every stored Lichess profile (lichess_users, one row per
-- user id) in the columns the audits read (TEAM-ELIG-1, TEAM-ELIG-2, TEAM-ELIG-5, TEAM-ELIG-6,
-- TEAM-ELIG-7), leaving out when it was fetched and the live RD (it decays by the hour); the same
-- profiles give the same digest in the working database and in the published snapshot.
SELECT md5(coalesce(string_agg(
           CAST(ROW(user_id, username, created_at, title, is_bot, is_closed, tos_violation, antichess_games,
                    antichess_rating, is_provisional) AS VARCHAR),
           chr(10) ORDER BY user_id), '')) AS digest
FROM lichess_users
