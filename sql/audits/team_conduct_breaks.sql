-- Audit team_conduct_breaks. Rules: TEAM-CONDUCT-1.
-- Invariant (evidence for the TDs): each player may call one break a match, of at most
-- break_max_minutes (10); otherwise rematches start at once. From match_breaks (over match_gaps): a gap between two
-- consecutive games of a board match longer than break_min_minutes (2) is a break. The data
-- cannot say who called it, so both players of the board get the row: a warning for a break
-- longer than break_max_minutes, or for more than one break in one board match (two are fine
-- only if each player called one: the TD finds out). The rows are match_break_findings' (shared
-- with acwc_conduct_breaks), each with the player's team.
-- Grain: one row per (board match with such breaks, player of it).
SELECT 'TEAM-CONDUCT-1' AS rule_id, severity, subject, who_team AS team, detail, evidence_url
FROM match_break_findings
WHERE tournament_kind = 'team'
