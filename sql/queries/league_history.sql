-- The league store's rating history of player $1 if fetched at or after $2.
SELECT payload FROM league_histories WHERE user_id = $1 AND fetched_at >= $2;
