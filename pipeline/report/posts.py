"""What TDs publish from the scored tables: results_<stage>.csv, the round posts (round_*.md) and
audit_findings.csv. ``pipeline.stages.export.export_stage`` decides which files to write; this
module says what is in them. Every name shown is a display name (the player's Lichess spelling, the team as
teams.csv spells it: the ``names`` query), ids stay in the ``*_id`` columns; every TD-typed text
in a post goes through :func:`exports.markdown_cell`.

A round post, per round of a stage:

- a title, then one line per match (``**A** 45 – 19 **B**: A wins``) under its own heading, so a
  line can carry a label (the final, the bronze match);
- the match's window, every TD ruling in force for it with its reason, and a table with one
  line per board: players, each part's score, the board total and links to the counted games;
- the byes, the standings after the round (Swiss stages), and a legend of the abbreviations.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pipeline.model import Config, Override
from pipeline.report import exports
from pipeline.store import findings_view, gateway

STANDINGS_COLUMNS = (
    "stage",
    "after_round",
    "rank",
    "entrant",
    "entrant_id",
    "matches_played",
    "byes",
    "match_points",
    "points_scored",
    "points_conceded",
    "points_difference",
    "median_buchholz",
    "cumulative",
    "seed_rating",
)

BYE_NAMES = {
    "pab": "pairing-allocated bye",
    "full": "full-point bye",
    "half": "half-point bye",
    "zero": "zero-point bye",
}


def write_standings(path: Path, stage: Any, table: Any) -> Path:
    """standings_<stage>.csv: the table after the stage's latest round, names as shown."""
    columns = STANDINGS_COLUMNS + (("kashdan",) if "kashdan" in stage.tiebreaks else ())
    exports.write_csv(path, columns, table.select(columns).iter_rows())
    return path


def write_results(path: Path, stage: Any, boards: Any) -> Path:
    """results_<stage>.csv: one row per board match: players (names as shown), each part's points,
    the totals, games played and due, the ruling that set it, the links of its counted games,
    and the ids."""
    parts = [str(p.time_control) for p in stage.parts]
    columns = ["stage", "round", "board", "team_a", "team_b", "player_a", "player_b"]
    columns += [f"{tc} {side}" for tc in parts for side in ("a", "b")]
    columns += [
        "total a",
        "total b",
        "games_played",
        "games_due",
        "override",
        "game_links",
        "team_a_id",
        "team_b_id",
        "player_a_id",
        "player_b_id",
    ]
    rows: dict[tuple[Any, ...], dict[str, Any]] = {}
    for r in boards.iter_rows(named=True):
        key = (r["round"], r["team_a_id"], r["board"])
        row = rows.setdefault(
            key,
            {
                c: r[c]
                for c in (
                    "stage",
                    "round",
                    "board",
                    "team_a",
                    "team_b",
                    "player_a",
                    "player_b",
                    "team_a_id",
                    "team_b_id",
                    "player_a_id",
                    "player_b_id",
                )
            },
        )
        label = "total" if r["part"] == "total" else r["part"]
        row[f"{label} a"], row[f"{label} b"] = r["a_points"], r["b_points"]
        if r["part"] == "total":
            row.update(
                games_played=r["games_played"],
                games_due=r["games_due"],
                override=r["override"],
                game_links=r["game_links"] or "",
            )
    exports.write_csv(path, columns, ([row.get(c) for c in columns] for row in rows.values()))
    return path


def write_findings(path: Path, findings: Sequence[Any]) -> Path:
    """audit_findings.csv: every finding, in the order ``antichess-td audit`` prints them."""
    columns = findings_view.FINDING_COLUMNS + ("audit",)
    exports.write_csv(path, columns, ([getattr(f, c) for c in columns] for f in findings))
    return path


# --------------------------------------------------------------------------- rulings


def rulings_in_force(
    rulings: Sequence[Override],
    stage_order: Sequence[str],
    stage: str,
    rnd: int,
    entrants: tuple[str, str],
    players: set[str],
    team_of: dict[str, str],
    game_ids: set[str],
) -> list[Override]:
    """The TD rulings that shape one match (stage, round, entrants a and b, the players on its
    boards, the games listed for it), in file order: a forfeit or 0-0 draw of one of its players
    in this round, a disqualification of one of its players from this round or earlier (or for
    cheating, any round of the stage), a game of the match excluded or included, its armageddon, a substitute
    for this round, a replacement from this round or earlier on one of its teams."""
    here = stage_order.index(stage) if stage in stage_order else 0

    def from_here_on(r: Override) -> bool:
        at = stage_order.index(r.stage) if r.stage in stage_order else 0
        return at < here or (at == here and r.round <= rnd)

    same_round = {r.line for r in rulings if (r.stage, r.round) == (stage, rnd)}
    out = []
    for r in rulings:
        now = r.line in same_round
        if r.action in ("forfeit", "zero_draw"):
            hit = now and r.subject in players
        elif r.action == "disqualify":
            hit = r.stage == stage and r.subject in players and (r.value == "cheating" or r.round <= rnd)
        elif r.action in ("exclude_game", "include_game"):
            hit = now and r.value in game_ids
        elif r.action == "armageddon":
            hit = now and r.subject in entrants
        elif r.action == "substitute":
            hit = now and team_of.get(r.subject) in entrants
        elif r.action == "replace":
            hit = from_here_on(r) and team_of.get(r.subject) in entrants
        else:
            hit = False
        if hit:
            out.append(r)
    return out


def ruling_text(r: Override, name: dict[str, str]) -> str:
    """A ruling as one Markdown line: what the TD decided, the reason, and where it is written.
    Names are display names; every TD-typed text is neutralised like a table cell."""

    def n(x: str) -> str:
        return exports.markdown_cell(name.get(x, x))

    what = {
        "forfeit": f"{n(r.subject)} forfeits "
        + (f"the {exports.markdown_cell(r.value)} part" if r.value else "the board"),
        "zero_draw": f"{n(r.subject)}'s board is a 0–0 draw, counted as played (TEAM-SCORE-4)",
        "exclude_game": f"game [{r.value}](https://lichess.org/{r.value}) does not count",
        "include_game": f"game [{r.value}](https://lichess.org/{r.value}) counts although outside the window",
        "armageddon": f"armageddon won by {n(r.value)} (ARM-1)",
        "disqualify": f"{n(r.subject)} disqualified from {r.stage} round {r.round}"
        + (" for cheating: every board they played goes to the opponents" if r.value == "cheating" else ""),
        "substitute": f"{n(r.value)} plays {n(r.subject)}'s board (TEAM-COMP-5)",
        "replace": f"{n(r.value)} replaces {n(r.subject)} from {r.stage} round {r.round} on (TEAM-COMP-6)",
    }.get(r.action, f"{r.action} {n(r.subject)} {exports.markdown_cell(r.value)}")
    return f"- TD ruling: {what}: {exports.markdown_cell(r.reason)} (overrides.csv line {r.line})"


# --------------------------------------------------------------------------- round posts


def _utc(t: dt.datetime) -> str:
    return t.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M")


def _score(a: float, b: float) -> str:
    return f"{a:g}–{b:g}"


def _result(m: dict[str, Any]) -> str:
    """``X wins`` for a decided match, else its outcome as the team_matches view says it (draw,
    pending, ...)."""
    if m["outcome"] in ("a", "b") and m["winner"]:
        return f"{exports.markdown_cell(m['winner'])} wins"
    return exports.markdown_cell(m["outcome"])


def match_line(m: dict[str, Any], label: str = "") -> str:
    """The heading line of one match: ``### [label: ]A 45 – 19 B: A wins``."""
    head = f"{label}: " if label else ""
    return (
        f"### {head}{exports.markdown_cell(m['team_a'])} {m['a_points']:g} – {m['b_points']:g} "
        f"{exports.markdown_cell(m['team_b'])}: {_result(m)}"
    )


def legend(config: Config, stage: Any) -> list[str]:
    """The abbreviations of a post, with the stage's values."""
    mp = stage.match_points
    parts = ", ".join(
        f"{p.time_control} ({p.games} game{'s' if p.games != 1 else ''}, win {p.win:g}, draw {p.draw:g})"
        for p in stage.parts
    )
    lines = [
        "",
        "---",
        "",
        f"*Scores* are points A–B. *Parts* are time controls, minutes+seconds of increment: {parts}; "
        f"(played/due) after a part's score: its games played and due. "
        f"*games*: links to the board's counted games on lichess.org. *Window*: the round's games count from its "
        f"start (included) to its end (excluded), UTC. *TD ruling*: a decision of the tournament directors "
        f"(overrides.csv), with its reason.",
    ]
    if stage.kind == "swiss":
        lines.append("")
        lines.append(
            f"*MP* match points (win {mp.win:g}, draw {mp.draw:g}, loss {mp.loss:g}); *scored* / *conceded* "
            f"points scored / conceded; *diff* points difference (scored − conceded); *MB* Median-Buchholz "
            f"(the opponents' scores without the highest and the lowest)."
        )
    return lines


def round_post(
    con: Any, config: Config, stage: Any, rnd: int, boards: Any, labels: dict[tuple[str, str], str] | None = None
) -> str:
    """A round's matches, board by board with their rulings and windows, its byes and the
    standings after it, ready to paste into a Lichess forum post. ``boards``: the stage's
    board_results_of_stage rows; ``labels``: an optional label per match (ids a, b)."""
    names = dict(gateway.query(con, "queries/names").iter_rows())
    team_of = dict(gateway.query(con, "queries/team_of_player").iter_rows())
    rulings = [Override(**r) for r in gateway.query(con, "queries/rulings").iter_rows(named=True)]
    windows = {
        (r["entrant_a"], r["entrant_b"]): (r["window_start"], r["window_end"])
        for r in gateway.query(con, "queries/windows_of_round", [stage.name, rnd]).iter_rows(named=True)
    }
    games = _match_game_ids(con, stage, rnd)
    order = [s.name for s in config.stages]
    part_names = [str(p.time_control) for p in stage.parts]
    rows = [r for r in boards.iter_rows(named=True) if r["round"] == rnd]

    lines = [f"## {exports.markdown_cell(config.name)} — {stage.name}, round {rnd}"]
    spans = set(windows.values())
    if len(spans) == 1:
        ((start, end),) = spans
        lines += ["", f"Window: {_utc(start)} – {_utc(end)} UTC"]
    for m in gateway.query(con, "queries/team_matches_of_round", [stage.name, rnd]).iter_rows(named=True):
        a, b = m["team_a_id"], m["team_b_id"]
        lines += ["", match_line(m, (labels or {}).get((a, b), "")), ""]
        if len(spans) > 1 and (a, b) in windows:
            start, end = windows[a, b]
            lines.append(f"Window: {_utc(start)} – {_utc(end)} UTC")
        mine = [r for r in rows if r["team_a_id"] == a]
        players = {r[k] for r in mine for k in ("player_a_id", "player_b_id")}
        for r in rulings_in_force(rulings, order, stage.name, rnd, (a, b), players, team_of, games.get(a, set())):
            lines.append(ruling_text(r, names))
        if m["tiebreak"]:
            lines.append(f"- Tiebreak: {exports.markdown_cell(m['tiebreak'])}")
        if lines[-1]:
            lines.append("")
        lines += exports.markdown_table(
            ["board", "A", "B", *part_names, "total", "games"], _board_lines(mine, part_names)
        )
    lines += _byes_and_standings(con, stage, rnd)
    lines += legend(config, stage)
    return "\n".join(lines) + "\n"


def _match_game_ids(con: Any, stage: Any, rnd: int) -> dict[str, set[str]]:
    """The ids of each match's games in the round, by team a's id (what a game ruling may name)."""
    games: dict[str, set[str]] = {}
    for a, g in gateway.query(con, "queries/match_game_ids_of_round", [stage.name, rnd]).iter_rows():
        games.setdefault(a, set()).add(g)
    return games


def _byes_and_standings(con: Any, stage: Any, rnd: int) -> list[str]:
    """The round's byes, then a Swiss stage's standings after it."""
    lines: list[str] = []
    byes = gateway.query(con, "queries/byes_of_round", [stage.name, rnd])
    if byes.height:
        lines += [""] + [
            f"Bye: {exports.markdown_cell(r['entrant'])} ({BYE_NAMES[r['kind']]})" for r in byes.iter_rows(named=True)
        ]
    table = gateway.query(con, "queries/standings_shown_after", [stage.name, rnd])
    if table.height and stage.kind == "swiss":
        lines += ["", f"### Standings after round {rnd}", ""]
        lines += exports.markdown_table(
            ["#", "entrant", "MP", "scored", "conceded", "diff", "MB"],
            (
                [
                    r["rank"],
                    r["entrant"],
                    r["match_points"],
                    r["points_scored"],
                    r["points_conceded"],
                    r["points_difference"],
                    r["median_buchholz"],
                ]
                for r in table.iter_rows(named=True)
            ),
        )
    return lines


def _board_lines(rows: list[dict[str, Any]], part_names: list[str]) -> list[list[Any]]:
    """One line per board: its players, each part's score A–B, the total, the links of its counted games."""
    by_board: dict[int, dict[str, dict[str, Any]]] = {}
    for r in rows:
        by_board.setdefault(r["board"], {})[r["part"]] = r
    out = []
    for board in sorted(by_board):
        parts = by_board[board]
        total = parts.get("total")
        first = total or next(iter(parts.values()))
        cells: list[Any] = [board, first["player_a"], first["player_b"]]
        for p in part_names:
            part = parts.get(p)
            cells.append(
                f"{_score(part['a_points'], part['b_points'])} ({part['games_played']}/{part['games_due']})"
                if part
                else ""
            )
        cells.append(_score(total["a_points"], total["b_points"]) if total else "")
        links = (total or {}).get("game_links") or ""
        cells.append(" ".join(f"[{i}]({url})" for i, url in enumerate(links.split(), 1)))
        out.append(cells)
    return out
