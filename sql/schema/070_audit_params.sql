-- audit_params: exactly one row, the audits' parameters as the pipeline wrote them from the
-- config on the last audit run (pipeline/stages/audit.py). Every file in sql/audits/ CROSS JOINs it,
-- so a TD can run any audit in the duckdb CLI on the published file and get the same rows.
-- Times are UTC; months are calendar months, applied per player in the audited_players view.
CREATE TABLE IF NOT EXISTS audit_params (
    tournament_id           VARCHAR NOT NULL,
    tournament_kind         VARCHAR NOT NULL,   -- 'team' (TEAM-* audits) | 'individual' (ACWC-* audits)
    boards                  INTEGER NOT NULL,   -- TEAM-COMP-1
    min_teams_for_4_boards  INTEGER NOT NULL,   -- TEAM-COMP-1: 3 boards if fewer teams (10)
    audited_at              TIMESTAMPTZ NOT NULL,
    registration_at         TIMESTAMPTZ,        -- NULL: not configured (TEAM-ELIG-1..4 cannot be checked)
    pairings_announced_at   TIMESTAMPTZ,        -- TEAM-ELIG-7
    history_since           TIMESTAMPTZ NOT NULL,   -- no game created earlier is stored (lichess.history_since)
    min_account_age_months  INTEGER NOT NULL,   -- TEAM-ELIG-1
    min_rated_games         INTEGER NOT NULL,   -- TEAM-ELIG-2, ACWC-ELIG-2
    min_recent_games        INTEGER NOT NULL,   -- TEAM-ELIG-3
    recent_months           INTEGER NOT NULL,   -- TEAM-ELIG-3
    cheat_months_one        INTEGER NOT NULL,   -- TEAM-ELIG-4: no cheat-detected game in these months
    cheat_months_two        INTEGER NOT NULL,   -- TEAM-ELIG-4: not two in these months
    provisional_rd          DOUBLE NOT NULL,    -- TEAM-ELIG-7: provisional at RD >= this (110)
    assumed_volatility      DOUBLE NOT NULL,    -- TEAM-ELIG-7: Glicko-2 volatility used to decay an RD estimate
    created_before          TIMESTAMPTZ NOT NULL,   -- ACWC-ELIG-1
    games_before            TIMESTAMPTZ NOT NULL,   -- ACWC-ELIG-2
    one_cheat_since         TIMESTAMPTZ NOT NULL,   -- ACWC-ELIG-3
    two_cheats_since        TIMESTAMPTZ NOT NULL,   -- ACWC-ELIG-3
    cap_since               TIMESTAMPTZ NOT NULL,   -- TEAM-CAP-2 (00:00 UTC of rating_cap.cap_since)
    cap_replace_by          TIMESTAMPTZ NOT NULL,   -- TEAM-CAP-6 (00:00 UTC of rating_cap.replace_by)
    cap_two_agm             INTEGER NOT NULL,   -- TEAM-CAP-1
    cap_one_asgm            INTEGER NOT NULL,
    cap_one_agm             INTEGER NOT NULL,
    cap_no_title            INTEGER NOT NULL,
    cap_min_cross_days      INTEGER NOT NULL,   -- TEAM-CAP-3
    cap_max_rd              DOUBLE NOT NULL,    -- TEAM-CAP-5
    cap_hold_hours          DOUBLE NOT NULL,    -- TEAM-CAP-4
    max_titled              INTEGER NOT NULL,   -- TEAM-COMP-2
    board_order_tolerance   INTEGER NOT NULL,   -- TEAM-COMP-4
    substitute_max_diff     INTEGER NOT NULL,   -- TEAM-COMP-5
    replacement_min_below   INTEGER NOT NULL,   -- TEAM-COMP-6
    seeding_at              TIMESTAMPTZ,        -- ACWC-SEED-1 / TEAM-COMP-4 (NULL: registration_at)
    seeding_peak_since      TIMESTAMPTZ,        -- ACWC-SEED-1 (NULL: the seeding rating is the rating at seeding_at)
    break_min_minutes       DOUBLE NOT NULL,    -- TEAM-CONDUCT-1: a longer gap is a break
    break_max_minutes       DOUBLE NOT NULL,    -- TEAM-CONDUCT-1
    part_gap_max_minutes    DOUBLE NOT NULL,    -- TEAM-CONDUCT-2
    forfeits_to_disqualify  INTEGER NOT NULL    -- TEAM-CONDUCT-3, ACWC-CONDUCT-1
);
