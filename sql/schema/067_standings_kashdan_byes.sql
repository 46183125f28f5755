-- Migration: the Kashdan tiebreak (ACWC 2022-2024 books: 4 per match won, 2 drawn, 1 lost, 0 unplayed)
-- and the number of byes an entrant had (pairings.csv rows with an empty b) up to the round.
ALTER TABLE scored_standings ADD COLUMN IF NOT EXISTS kashdan DOUBLE DEFAULT 0;
ALTER TABLE scored_standings ADD COLUMN IF NOT EXISTS byes INTEGER DEFAULT 0;
