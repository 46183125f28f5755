-- 010: scored_standings.seed_rating becomes DOUBLE: it now holds the seeding view's rating
-- (ACWC-SEED-1, the mean of two ratings, so it can end in .5) that pairing uses too, where it
-- held players.csv's whole-number seed. Idempotent: on a DOUBLE column it changes nothing.
-- Needed by databases written before commit e32130f's successor (the seed tiebreak from the seeding view).
ALTER TABLE scored_standings ALTER COLUMN seed_rating SET DATA TYPE DOUBLE;
