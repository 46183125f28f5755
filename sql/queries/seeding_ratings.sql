-- seeding_ratings: one row per audited player: its entrant (team, or the player for an individual
-- event), board and seeding rating (the seeding view, ACWC-SEED-1, at registration_at unless
-- audit_params.seeding_at says otherwise); seed_rating is what players.csv says.
SELECT team_id AS entrant, user_id, board, seeding_rating, seed_rating FROM seeding ORDER BY team_id, board
