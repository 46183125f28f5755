-- sent_messages: one row per (channel, subject): each notification the runs sent, or tried to send.
-- channel says where, never how to reach it: 'webhook:<url_env>' (the variable's name, not its
-- URL), 'lichess-team:<team id>' (pm-all), 'lichess-inbox:<user id>'. subject says what:
-- 'item:<attention item key>' (a webhook), 'announce:<stage>:<round>' or 'announce:<stage>:final',
-- 'remind:<stage>:<round>:<user id>'. A row is written 'sending' before the message goes out and
-- updated with the answer after: 'sent' (a 2xx), 'failed' (not delivered: tried again next run),
-- 'refused' (Lichess said no: a missing scope, not the team's leader; tried again next run),
-- 'limited' (HTTP 429 after the wait; next run), 'unknown' (the answer was lost, or a run stopped
-- while sending: it may have arrived, so it is never sent again). Only 'failed', 'refused' and
-- 'limited' are sent again; nothing is sent twice across reruns, crashes and resumed runs.
CREATE TABLE IF NOT EXISTS sent_messages (
    channel       VARCHAR NOT NULL,
    subject       VARCHAR NOT NULL,
    kind          VARCHAR NOT NULL,        -- item | announcement | reminder
    body          VARCHAR NOT NULL,        -- the text sent (a webhook's whole message, or the item's JSON)
    status        VARCHAR NOT NULL,        -- sending | sent | failed | refused | limited | unknown
    answer        VARCHAR,                 -- what came back: 'HTTP 204', 'HTTP 403: Missing scope: msg:write', 'ReadTimeout'
    attempts      INTEGER NOT NULL,        -- tries so far (one per run at most)
    first_tried_at TIMESTAMPTZ NOT NULL,   -- the run's time (--now) of the first try
    updated_at    TIMESTAMPTZ NOT NULL,    -- the run's time of the last try
    PRIMARY KEY (channel, subject)
);
