-- Audit team_score_unplayed. Rules: TEAM-SCORE-4, TEAM-FMT-3, TEAM-DQ-1.
-- Invariant: once a round window and the stage's window_margin_days have passed, every board of
-- its matches has games or a TD ruling. A board with neither is unplayed (unplayed_matches), not
-- a 0-0 draw: TEAM-SCORE-4's 0-0 draw is a TD ruling. The TD rules in overrides.csv: forfeit (the
-- player at fault; the opponent scores the board, TEAM-DQ-1), zero_draw (no one at fault: 0-0,
-- counted as played), or gives a new window (window_start/window_end in pairings.csv, TEAM-FMT-3).
-- An unplayed match gives no points and no match points until then; a match a side had already
-- won with the games played stands, and only the board's points wait.
-- Grain: one row per match with unplayed boards.
SELECT 'TEAM-SCORE-4' AS rule_id,
       'error' AS severity,
       format('{} v {}', u.name_a, u.name_b) AS subject,
       CAST(NULL AS VARCHAR) AS team,
       format('{} round {}: no game and no ruling on {} by the end of the window ({} UTC) and its margin: {}; '
              || 'the TD rules in overrides.csv: forfeit (the player at fault), zero_draw (no one at fault: 0-0, '
              || 'counted as played) or a new window in pairings.csv',
              u.stage, u.round, u.boards, strftime(timezone('UTC', u.window_end), '%Y-%m-%d %H:%M'),
              CASE WHEN u.outcome = 'unplayed' THEN 'the match is unplayed (no points, no match points) until then'
                   ELSE format('{} had already won the match (it stands); the board''s points wait', u.winner) END)
           AS detail,
       CAST(NULL AS VARCHAR) AS evidence_url
FROM unplayed_matches u
CROSS JOIN audit_params a
WHERE a.tournament_kind = 'team'
