-- rating_estimate_tracks: one row per tracked player, the RD estimator's state after the last
-- game estimated (pipeline/domain/rd.py resume_rd: the post-game RD interval and point, when, and the
-- running volatility estimate), so a night estimates only the games that came after it.
CREATE TABLE IF NOT EXISTS rating_estimate_tracks (
    user_id VARCHAR PRIMARY KEY,
    lo      DOUBLE NOT NULL,
    hi      DOUBLE NOT NULL,
    rd      DOUBLE,
    sd      DOUBLE NOT NULL,
    rated_at TIMESTAMPTZ NOT NULL,
    w_sum   DOUBLE NOT NULL,
    wy_sum  DOUBLE NOT NULL
);
