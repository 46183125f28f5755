-- attention_items: one row per (run, item) of the attention list a run computed (what needs the
-- TD; pipeline/stages/attention.py), in the order it is shown (position). Kept for every run that
-- computed one, so the next run reads its predecessor's list (the newest 'ok' run whose
-- pipeline_runs.counts has an 'attention' entry) and says which items are new. key is the item's
-- identity across runs; status how it compared with that previous list ('new' | 'open').
CREATE TABLE IF NOT EXISTS attention_items (
    run_id       INTEGER NOT NULL,
    position     INTEGER NOT NULL,
    key          VARCHAR NOT NULL,
    kind         VARCHAR NOT NULL,      -- ruling_due | games_due | finding_new | finding_resolved | account | round_ready | near_miss | stale
    rule_id      VARCHAR NOT NULL,      -- the rule's id (docs/rules.md); '' when no rule applies (stale)
    severity     VARCHAR NOT NULL,      -- error | warning | info
    status       VARCHAR NOT NULL,      -- new | open
    subject      VARCHAR NOT NULL,      -- who, in display names
    sentence     VARCHAR NOT NULL,
    action       VARCHAR NOT NULL,      -- the command to run or the overrides.csv line(s) to fill in; lines separated by LF
    evidence_url VARCHAR,               -- a lichess.org game or profile link
    stage        VARCHAR,
    round        INTEGER,
    deadline     TIMESTAMPTZ,           -- the round window's end, for games still due
    players      VARCHAR[] NOT NULL,    -- Lichess usernames concerned
    opponents    VARCHAR[] NOT NULL,    -- each one's opponent, same order
    due          STRUCT(time_control VARCHAR, games INTEGER)[] NOT NULL,  -- games still to play, per part
    PRIMARY KEY (run_id, key)
);
