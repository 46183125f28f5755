-- Audit acwc_unplayed. Rules: ACWC-DQ-1, ACWC-CONDUCT-1.
-- Invariant: once a round window and the stage's window_margin_days have passed, every match has
-- games or a TD ruling. A match with neither is unplayed (unplayed_matches): no points, not a
-- match played, never a silent 0-0 draw. The TD rules in overrides.csv: forfeit (the player at
-- fault, a no-show, ACWC-CONDUCT-1; a withdrawn or disqualified player's pairing goes to the
-- opponent, ACWC-DQ-1), zero_draw (no one at fault: 0-0, counted as played), or gives a new window
-- (window_start/window_end in pairings.csv).
-- Grain: one row per unplayed match.
SELECT 'ACWC-CONDUCT-1' AS rule_id,
       'error' AS severity,
       format('{} v {}', u.name_a, u.name_b) AS subject,
       CAST(NULL AS VARCHAR) AS team,
       format('{} round {}: no game and no ruling by the end of the window ({} UTC) and its margin: the match is '
              || 'unplayed (no points) until the TD rules in overrides.csv: forfeit (the player at fault), zero_draw '
              || '(no one at fault: 0-0, counted as played) or a new window in pairings.csv',
              u.stage, u.round, strftime(timezone('UTC', u.window_end), '%Y-%m-%d %H:%M')) AS detail,
       CAST(NULL AS VARCHAR) AS evidence_url
FROM unplayed_matches u
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'individual'
