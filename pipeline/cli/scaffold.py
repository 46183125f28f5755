"""``antichess-td init`` and ``antichess-td check``: a new tournament folder, and a dry validation.

``init`` writes a commented ``tournament.toml`` for a preset (the keys to set first, every other
key with the preset's value in a comment, generated from the loader like docs/config.md), the TD's
CSV files with their header rows only, and CHECKLIST.md. It never overwrites a file.

``check`` reads everything ``nightly`` reads before it starts (the config, teams.csv or
players.csv, pairings.csv, overrides.csv against both) and writes and fetches nothing.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.errors import InputError
from pipeline.inputs import config, config_reference

# The header rows of the TD's files (README, "Register teams and publish pairings").
TEAMS_HEADER = ("team", "player", "board", "title", "captain")
PLAYERS_HEADER = ("player", "seed_rating")
PAIRINGS_HEADER = ("stage", "round", "a", "b", "window_start", "window_end", "bye")
OVERRIDES_HEADER = ("stage", "round", "subject", "action", "value", "reason")

# What a TD must fill in before the first run: written uncommented with an empty value, so that
# `check` names the first one left empty. The first stage's first_round_start is added per preset.
_SET_FIRST = {
    "team": {
        "tournament.id": 'a short id, e.g. "team-swiss-2026" (names the `serve` deployment)',
        "tournament.name": 'the name shown in round posts, e.g. "Antichess Team Swiss 2026"',
        "tournament.registration_at": 'when registration closed, UTC, e.g. "2026-08-25T00:00:00Z" '
        "(TEAM-ELIG-1..4 count back from it)",
    },
    "individual": {
        "tournament.id": 'a short id, e.g. "acwc-2026" (names the `serve` deployment)',
        "tournament.name": 'the name shown in round posts, e.g. "Antichess World Cup 2026"',
    },
}
_FIRST_ROUND = {
    "team": "round 1's start, UTC, e.g. \"2026-09-01T00:00:00Z\" (a Tuesday: TEAM-FMT-3's rounds run Tuesday "
    "00:00 to Monday 23:59:59 UTC, one a week)",
    "individual": 'round 1\'s start, UTC, e.g. "2026-09-01T00:00:00Z" (round r runs round_days from '
    "start + round_days × (r - 1))",
}


@dataclass(frozen=True)
class Plan:
    """The files ``init`` writes, by name, with their text."""

    files: dict[str, str]


def presets() -> list[str]:
    return sorted(p.stem for p in config.PRESETS_DIR.glob("*.toml"))


def plan(preset: str) -> Plan:
    if preset not in presets():
        raise InputError("--preset", "", f"unknown preset {preset!r}: expected one of {', '.join(presets())}")
    doc = config_reference.preset_document(preset)
    kind = doc.get("tournament", {}).get("kind", "team")
    roster = "teams.csv" if kind == "team" else "players.csv"
    header = TEAMS_HEADER if kind == "team" else PLAYERS_HEADER
    return Plan(
        {
            "tournament.toml": tournament_toml(preset),
            roster: ",".join(header) + "\n",
            "pairings.csv": ",".join(PAIRINGS_HEADER) + "\n",
            "overrides.csv": ",".join(OVERRIDES_HEADER) + "\n",
            "CHECKLIST.md": checklist(preset, kind, list(doc.get("stages", {}))),
        }
    )


def init(folder: Path, preset: str) -> list[Path]:
    """Write the new tournament's files into ``folder`` (created if missing); refuse, writing
    nothing, if any of them exists."""
    files = plan(preset).files
    for name in files:
        if (folder / name).exists():
            raise InputError(
                folder / name,
                "",
                f"already exists in {folder}: init writes only into a folder without "
                f"{', '.join(files)} (it never overwrites)",
            )
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        path = folder / name
        with path.open("x", encoding="utf-8", newline="\n") as f:
            f.write(text)
        written.append(path)
    return written


# --------------------------------------------------------------------------- tournament.toml


def _comment(text: str, width: int = 34) -> str:
    return f"{text:<{width}} # "


def tournament_toml(preset: str) -> str:
    """The commented tournament.toml of a preset: the keys to set first (empty), the paths, and
    every other key with the preset's value (or the loader's default) in a comment."""
    doc = config_reference.preset_document(preset)
    kind = doc.get("tournament", {}).get("kind", "team")
    specs = config_reference.keys_of(config_reference.probe_document(preset), preset)
    first = {s.key: s for s in specs}  # one spec per key, in reading order
    must = dict(_SET_FIRST[kind])
    other = "ACWC-" if kind == "team" else "TEAM-"
    paths = {
        "teams": "teams.csv",
        "players": "players.csv",
        "pairings": "pairings.csv",
        "overrides": "overrides.csv",
        "database": f"out/{'team' if kind == 'team' else 'event'}.duckdb",
        "exports": "out/exports",
    }
    if kind == "team":
        del paths["players"]
    else:
        del paths["teams"]

    out = [
        f'# A tournament from the {preset} preset, written by `antichess-td init`. Fill in every value marked "set:"',
        "# (CHECKLIST.md says in which order), then run: antichess-td check --config tournament.toml",
        "# Every other key shows the preset's value in a comment: uncomment a line to change it. Every key is",
        "# described in docs/config.md. Times are UTC (ISO-8601); paths are relative to this file.",
        "# The Lichess token never goes in this file: lichess.token_env names the variable that holds it.",
        f'preset = "{preset}"',
    ]
    tables: dict[str, list[str]] = {}
    for key, spec in first.items():
        if key == "preset" or spec.kind == "table" or "[]" in key or key.startswith("stages"):
            continue
        table, name = key.rsplit(".", 1)
        if spec.doc.startswith(other) and config_reference.lookup(doc, key) is ...:
            continue
        lines = tables.setdefault(table, [])
        if key in must:
            lines.insert(
                sum(1 for line in lines if not line.startswith("#")), _comment(f'{name} = ""') + f"set: {must[key]}"
            )
        elif table == "paths" and name in paths:
            lines.append(_comment(f'{name} = "{paths[name]}"') + spec.doc)
        elif table == "paths" and name in ("teams", "players"):
            continue
        else:
            lines.append("# " + _comment(f"{name} = {_value(doc, key, spec)}", 32) + spec.doc)
    for table, lines in tables.items():
        out += ["", f"[{table}]", *lines]
        if table == "paths":
            out += _stage_tables(doc, first, kind)
    return _checked("\n".join(out) + "\n")


def _checked(text: str) -> str:
    tomllib.loads(text)  # what init writes is TOML
    return text


def _stage_tables(doc: dict[str, Any], first: dict[str, config.KeySpec], kind: str) -> list[str]:
    """Each stage of the preset: first_round_start to set (the first stage's now, the others' once
    known), then the preset's own values for it in comments."""
    out: list[str] = []
    stages = list(doc.get("stages", {}))
    stage_specs = [
        s for k, s in first.items() if k.startswith("stages.<name>.") and "[]" not in k and k.count(".") == 2
    ]
    for i, stage in enumerate(stages):
        body = doc["stages"][stage]
        out += ["", f"[stages.{stage}]"]
        if i == 0:
            out.append(_comment('first_round_start = ""') + f"set: {_FIRST_ROUND[kind]}")
        else:
            out.append(
                "# " + _comment('first_round_start = ""', 32) + "set when the stage's dates are known "
                "(unset: every pairings.csv row of the stage gives its window)"
            )
        for spec in stage_specs:
            name = spec.key.rsplit(".", 1)[1]
            if name not in body:
                continue
            if name == "parts":
                out.append("# " + _comment("parts = [", 32) + spec.doc)
                out += [f"#   {config_reference.toml_value(p)}," for p in body[name]]
                out.append("# ]")
            else:
                out.append("# " + _comment(f"{name} = {config_reference.toml_value(body[name])}", 32) + spec.doc)
    out += ["# Other stage keys (tiebreaks, match_points, pab_points_scored, ...): docs/config.md."]
    return out


def _value(doc: dict[str, Any], key: str, spec: config.KeySpec) -> str:
    value = config_reference.lookup(doc, key)
    if value is ...:
        value = spec.default
    if value is None or value is ...:
        return '""'
    return config_reference.toml_value(value)


# --------------------------------------------------------------------------- CHECKLIST.md


def checklist(preset: str, kind: str, stages: list[str]) -> str:
    roster = "teams.csv" if kind == "team" else "players.csv"
    first = stages[0] if stages else "swiss"
    if kind == "team":
        roster_step = (
            "one row per player, `team,player,board,title,captain`: board 1–4 (5 = the\n"
            "   substitute, TEAM-COMP-5), title empty, `AGM` or `ASGM`, captain `yes` or empty. Lichess\n"
            "   names as on Lichess (case does not matter)."
        )
        entrants = "teams"
    else:
        roster_step = (
            "one row per player, `player,seed_rating` (the seeding rating, ACWC-SEED-1;\n"
            "   `antichess-td audit` checks it). The previous champion and runner-up, if they play, go\n"
            "   in `tournament.toml` as `champion` / `runner_up`."
        )
        entrants = "players"
    set_keys = ", ".join(f"`{k.split('.', 1)[1]}`" for k in _SET_FIRST[kind])
    return f"""# Checklist: a new {preset} tournament

Fill in, in this order (every file is in this folder; `docs/config.md` describes every config key):

1. **`tournament.toml`**: set {set_keys} under `[tournament]` and `first_round_start` under
   `[stages.{first}]` (and under the later stages once their dates are known). Every other key
   shows the preset's value in a comment; change only what your rule book changes.
2. **Your Lichess token**: create one at https://lichess.org/account/oauth/token (no scope needed)
   and put it in the environment variable `LICHESS_TOKEN` (`lichess.token_env` names another),
   never in a file. Without one, Lichess sends no rating histories. See `docs/token.md`.
3. **`{roster}`**: {roster_step}
4. **`pairings.csv`**: the first round — one row per match, `stage,round,a,b` (`{first},1,A,B`), the
   {entrants} as written in `{roster}`. The round window follows `first_round_start`;
   `window_start`/`window_end` override it for one row. A bye: an empty `b` (the `bye` column:
   `pab`, `full`, `half` or `zero`).
5. **`overrides.csv`**: leave it empty until you make a ruling (forfeit, 0-0 draw, substitute, ...;
   every row needs a reason).

Then run the two commands:

```
antichess-td check --config tournament.toml     # validates everything above; writes and fetches nothing
antichess-td nightly --config tournament.toml   # fetches, scores, audits, exports, publishes
```

`check` prints `ok: ...` or one line naming the file, the line or key, and what was expected (exit 2).
Each new round: append its pairings to `pairings.csv` and run `nightly` again (or let
`antichess-td serve` run it every night). When a stage is decided, `nightly` writes the next stage's
proposed pairings under `out/exports/`: check them, publish them, append them to `pairings.csv`.
"""


# --------------------------------------------------------------------------- check


def check(config_path: Path) -> tuple[str, list[str]]:
    """Validate the config and every TD file as ``nightly`` would before it starts; return the
    one-line summary and notes (what the audits will not be able to check, a missing token)."""
    from pipeline.domain.audit_params import notes_for
    from pipeline.stages import context

    cfg = config.load_config(config_path)
    inputs = context.read_inputs(cfg)
    data = cfg.lichess.replay_data
    if data is not None and not data.is_dir():
        raise InputError(
            cfg.path,
            "key 'lichess.replay_data'",
            f"{data}: expected a folder of recorded Lichess data (users.ndjson, rating-history/, games.ndjson)",
        )
    counts = []
    if cfg.kind == "team":
        counts.append(_n(len(inputs.roster.entrants), "team"))
    counts.append(_n(len(inputs.roster.members), "player"))
    counts.append(_n(len(inputs.pairings), "pairing"))
    if inputs.byes:
        counts.append(_n(len(inputs.byes), "bye"))
    counts.append(_n(len(inputs.overrides), "ruling"))
    notes = notes_for(cfg)
    if data is None and not os.environ.get(cfg.lichess.token_env):
        notes.append(
            f"no Lichess token in ${cfg.lichess.token_env}: Lichess answers rating-history requests "
            "without one with [] (docs/token.md)"
        )
    return "ok: " + ", ".join(counts), notes


def _n(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
