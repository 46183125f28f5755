-- team_matches: one row per pairing; for individual events the team columns hold players.
-- override: the TD ruling (armageddon, ARM-1) that decided it, with its reason (the winner as shown); tiebreak: how a
-- tied knockout match was decided (TEAM-KO-1) or what it still needs.
-- team_a, team_b, winner are names as shown (entrant_names); *_id the ids the scored tables use.
-- key: stage, round, team_a_id
CREATE OR REPLACE VIEW team_matches AS
SELECT t.stage, t.round, coalesce(na.entrant, t.team_a) AS team_a, coalesce(nb.entrant, t.team_b) AS team_b,
       t.a_points, t.b_points, t.max_points, t.winning_points, t.decided_by_game_id,
       CASE t.winner WHEN t.team_a THEN coalesce(na.entrant, t.team_a) WHEN t.team_b THEN coalesce(nb.entrant, t.team_b)
                     ELSE t.winner END AS winner,
       t.outcome, t.games_played, t.games_due,
       replace(replace(t.override, concat('armageddon won by ', t.team_a, ': '), concat('armageddon won by ', coalesce(na.entrant, t.team_a), ': ')),
               concat('armageddon won by ', t.team_b, ': '), concat('armageddon won by ', coalesce(nb.entrant, t.team_b), ': ')) AS override,
       t.tiebreak,
       t.team_a AS team_a_id, t.team_b AS team_b_id, t.winner AS winner_id
FROM scored_team_matches t
LEFT JOIN entrant_names na ON na.entrant_id = t.team_a
LEFT JOIN entrant_names nb ON nb.entrant_id = t.team_b;
