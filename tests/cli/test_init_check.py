"""`antichess-td init` and `antichess-td check`: a new tournament folder a TD fills in with only the
docs at hand, and a dry validation that writes and fetches nothing. Last, the acceptance: a
10-team tournament set up from `init` runs to its knockout proposal (TEAM-FMT-1: 10-15 teams → 4
qualify, so the knockout is the semifinals)."""

from __future__ import annotations

import csv
import datetime as dt
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pipeline.inputs.config import load_config
from pipeline.inputs.td_files import read_schedule, read_teams

ROOT = Path(__file__).resolve().parents[2]
FILES_TEAM = ["tournament.toml", "teams.csv", "pairings.csv", "overrides.csv", "CHECKLIST.md"]


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, env=env, timeout=timeout
    )


def set_key(text: str, table: str, key: str, value: str) -> str:
    """What a TD does in an editor: in [table], replace the line `key = ...` (or its commented
    form `# key = ...`) with `key = value`."""
    lines = text.splitlines()
    start = lines.index(f"[{table}]")
    for i in range(start + 1, len(lines)):
        if lines[i].startswith("["):
            break
        if re.match(rf"^(# )?{re.escape(key)} = ", lines[i]):
            lines[i] = f"{key} = {value}"
            return "\n".join(lines) + "\n"
    raise AssertionError(f"{key} not in [{table}]")


def fill_names_and_dates(folder: Path, first_stage: str = "swiss", registration: bool = True) -> None:
    path = folder / "tournament.toml"
    text = path.read_text(encoding="utf-8")
    text = set_key(text, "tournament", "id", '"club-swiss-2026"')
    text = set_key(text, "tournament", "name", '"Club Team Swiss 2026"')
    if registration:
        text = set_key(text, "tournament", "registration_at", '"2026-08-25T00:00:00Z"')
    text = set_key(text, f"stages.{first_stage}", "first_round_start", '"2026-09-01T00:00:00Z"')
    path.write_text(text, encoding="utf-8")


TEAMS = [f"Team {c}" for c in "ABCDEFGHIJ"]


def write_ten_teams(folder: Path) -> None:
    with (folder / "teams.csv").open("a", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        for i, team in enumerate(TEAMS):
            for board in range(1, 5):
                w.writerow([team, f"Player{i}_{board}", board, "", "yes" if board == 1 else ""])
    with (folder / "pairings.csv").open("a", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        for a, b in zip(TEAMS[0::2], TEAMS[1::2], strict=False):
            w.writerow(["swiss", 1, a, b, "", "", ""])


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(folder.rglob("*"))}


# --------------------------------------------------------------------------- init


def test_init_team_swiss_writes_the_files_with_their_headers(tmp_path: Path) -> None:
    folder = tmp_path / "club"
    proc = cli("init", str(folder), "--preset", "team-swiss")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in folder.iterdir()) == sorted(FILES_TEAM)
    assert (folder / "teams.csv").read_text(encoding="utf-8") == "team,player,board,title,captain\n"
    assert (folder / "pairings.csv").read_text(encoding="utf-8") == "stage,round,a,b,window_start,window_end,bye\n"
    assert (folder / "overrides.csv").read_text(encoding="utf-8") == "stage,round,subject,action,value,reason\n"
    checklist = (folder / "CHECKLIST.md").read_text(encoding="utf-8")
    for needle in (
        "antichess-td check --config tournament.toml",
        "antichess-td nightly --config tournament.toml",
        "`teams.csv`",
        "`pairings.csv`",
        "`overrides.csv`",
        "first_round_start",
        "docs/token.md",
    ):
        assert needle in checklist
    # the order of the checklist: config, token, teams, pairings, rulings
    steps = [
        checklist.index(s)
        for s in (
            "1. **`tournament.toml`**",
            "2. **Your Lichess token**",
            "3. **`teams.csv`**",
            "4. **`pairings.csv`**",
            "5. **`overrides.csv`**",
        )
    ]
    assert steps == sorted(steps)


def test_init_acwc_writes_players_csv(tmp_path: Path) -> None:
    folder = tmp_path / "wc"
    assert cli("init", str(folder), "--preset", "acwc-2021").returncode == 0
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["tournament.toml", "players.csv", "pairings.csv", "overrides.csv", "CHECKLIST.md"]
    )
    assert (folder / "players.csv").read_text(encoding="utf-8") == "player,seed_rating\n"
    assert 'preset = "acwc-2021"' in (folder / "tournament.toml").read_text(encoding="utf-8")


def test_init_refuses_to_overwrite_anything(tmp_path: Path) -> None:
    folder = tmp_path / "club"
    folder.mkdir()
    (folder / "pairings.csv").write_text("mine\n", encoding="utf-8")
    proc = cli("init", str(folder), "--preset", "team-swiss")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"error: pairings.csv: already exists in {folder}: init writes only into a folder without tournament.toml, "
        "teams.csv, pairings.csv, overrides.csv, CHECKLIST.md (it never overwrites)"
    ]
    assert [p.name for p in folder.iterdir()] == ["pairings.csv"]  # nothing else written either
    assert (folder / "pairings.csv").read_text(encoding="utf-8") == "mine\n"


def test_init_unknown_preset_exit_2(tmp_path: Path) -> None:
    proc = cli("init", str(tmp_path / "x"), "--preset", "team-swis")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "error: --preset: unknown preset 'team-swis': expected one of acwc-2021, team-swiss"
    ]
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("preset", ["team-swiss", "acwc-2021"])
def test_init_comments_show_the_presets_values(tmp_path: Path, preset: str) -> None:
    """Uncommenting every commented key of the written file changes nothing: each comment shows the
    value the preset (or the loader) already uses."""
    folder = tmp_path / preset
    assert cli("init", str(folder), "--preset", preset).returncode == 0
    first = "swiss" if preset == "team-swiss" else "qualification"
    fill_names_and_dates(folder, first, registration=preset == "team-swiss")
    text = (folder / "tournament.toml").read_text(encoding="utf-8")
    uncommented = [re.sub(r"^# ((\w+ = (?!\"\")|  \{|\]).*)$", r"\1", line) for line in text.splitlines()]
    assert sum(a != b for a, b in zip(text.splitlines(), uncommented, strict=False)) > 40
    (folder / "all.toml").write_text("\n".join(uncommented) + "\n", encoding="utf-8")
    a, b = load_config(folder / "tournament.toml"), load_config(folder / "all.toml")
    assert {k: v for k, v in vars(a).items() if k != "path"} == {k: v for k, v in vars(b).items() if k != "path"}


# --------------------------------------------------------------------------- check


def test_check_guides_a_td_through_the_new_folder(tmp_path: Path) -> None:
    """Each run of `check` names the first thing left to fill in; once filled, one OK line with the
    counts (10 teams × 4 boards = 40 players, 5 pairings of round 1, no ruling)."""
    folder = tmp_path / "club"
    assert cli("init", str(folder), "--preset", "team-swiss").returncode == 0
    cfg = str(folder / "tournament.toml")
    proc = cli("check", "--config", cfg)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "error: tournament.toml key 'tournament.id': expected a non-empty string, got ''"
    ]
    fill_names_and_dates(folder)
    proc = cli("check", "--config", cfg)
    assert (proc.returncode, proc.stderr.splitlines()) == (
        2,
        ["error: teams.csv line 2: no teams: expected at least one row"],
    )
    write_ten_teams(folder)
    proc = cli("check", "--config", cfg, env={**os.environ, "LICHESS_TOKEN": "lip_x"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["ok: 10 teams, 40 players, 5 pairings, 0 rulings"]
    assert proc.stderr == ""


def test_check_warns_of_a_missing_token_and_still_passes(tmp_path: Path) -> None:
    folder = tmp_path / "club"
    assert cli("init", str(folder)).returncode == 0
    fill_names_and_dates(folder)
    write_ten_teams(folder)
    env = {k: v for k, v in os.environ.items() if k != "LICHESS_TOKEN"}
    proc = cli("check", "--config", str(folder / "tournament.toml"), env=env)
    assert proc.returncode == 0
    assert proc.stderr.splitlines() == [
        "note: no Lichess token in $LICHESS_TOKEN: Lichess answers rating-history "
        "requests without one with [] (docs/token.md)"
    ]


def test_check_validates_rulings_against_teams_and_pairings(tmp_path: Path) -> None:
    folder = tmp_path / "club"
    assert cli("init", str(folder)).returncode == 0
    fill_names_and_dates(folder)
    write_ten_teams(folder)
    overrides = folder / "overrides.csv"
    with overrides.open("a", encoding="utf-8") as f:
        f.write("swiss,1,Player0_2,forfeit,,did not show up\n")
    cfg = str(folder / "tournament.toml")
    proc = cli("check", "--config", cfg)
    assert (proc.returncode, proc.stdout.splitlines()) == (0, ["ok: 10 teams, 40 players, 5 pairings, 1 ruling"])
    with overrides.open("a", encoding="utf-8") as f:
        f.write("swiss,2,Player0_3,forfeit,,did not show up\n")  # round 2 is not paired yet
    proc = cli("check", "--config", cfg)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "error: overrides.csv line 3: 'Player0_3''s team is not paired in swiss round 2"
    ]


def test_check_an_individual_event(tmp_path: Path) -> None:
    """acwc-2021: players.csv instead of teams.csv; the summary counts players, not teams."""
    folder = tmp_path / "wc"
    assert cli("init", str(folder), "--preset", "acwc-2021").returncode == 0
    fill_names_and_dates(folder, "qualification", registration=False)
    players = [f"Entrant{i:02d}" for i in range(16)]
    with (folder / "players.csv").open("a", encoding="utf-8") as f:
        f.writelines(f"{p},{2000 - i}\n" for i, p in enumerate(players))
    with (folder / "pairings.csv").open("a", encoding="utf-8") as f:
        f.writelines(f"qualification,1,{a},{b},,,\n" for a, b in zip(players[0::2], players[1::2], strict=False))
    proc = cli("check", "--config", str(folder / "tournament.toml"), env={**os.environ, "LICHESS_TOKEN": "lip_x"})
    assert (proc.returncode, proc.stdout.splitlines(), proc.stderr) == (
        0,
        ["ok: 16 players, 8 pairings, 0 rulings"],
        "",
    )


def test_check_refuses_a_missing_replay_dataset(tmp_path: Path) -> None:
    folder = tmp_path / "club"
    assert cli("init", str(folder)).returncode == 0
    fill_names_and_dates(folder)
    write_ten_teams(folder)
    path = folder / "tournament.toml"
    path.write_text(set_key(path.read_text(encoding="utf-8"), "lichess", "replay_data", '"lichess"'), encoding="utf-8")
    proc = cli("check", "--config", str(path))
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"error: tournament.toml key 'lichess.replay_data': {folder / 'lichess'}: expected a "
        "folder of recorded Lichess data (users.ndjson, rating-history/, games.ndjson)"
    ]


def test_check_writes_nothing_and_opens_no_network(tmp_path: Path) -> None:
    """`check` on a complete folder, in a process where any socket connection, datagram or name
    lookup aborts (urllib3's import-time IPv6 probe binds a socket but sends nothing, so bind is
    allowed): exit 0, and the folder's listing (names, sizes, modification times) is unchanged."""
    folder = tmp_path / "club"
    assert cli("init", str(folder)).returncode == 0
    fill_names_and_dates(folder)
    write_ten_teams(folder)
    before = listing(folder)
    guard = (
        "import sys\n"
        "def hook(event, args):\n"
        "    if event in ('socket.connect', 'socket.getaddrinfo', 'socket.sendto', 'socket.sendmsg'):\n"
        "        raise SystemExit(f'network: {event} {args!r}')\n"
        "sys.addaudithook(hook)\n"
        "if sys.argv[1] == 'probe':\n"
        "    import socket; socket.create_connection(('127.0.0.1', 9), timeout=1)\n"
        "from pipeline.cli.app import main\n"
        "sys.argv = ['antichess-td', *sys.argv[1:]]\n"
        "main()\n"
    )
    probe = subprocess.run([sys.executable, "-c", guard, "probe"], capture_output=True, text=True, timeout=60)
    assert probe.returncode == 1 and probe.stderr.startswith("network: socket.")  # the guard works
    proc = subprocess.run(
        [sys.executable, "-c", guard, "check", "--config", str(folder / "tournament.toml")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LICHESS_TOKEN": "lip_x"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["ok: 10 teams, 40 players, 5 pairings, 0 rulings"]
    assert listing(folder) == before


# --------------------------------------------------------------------------- the acceptance


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.scenario
@pytest.mark.slow
@pytest.mark.prefect
def test_ten_teams_from_init_run_to_the_semifinal_proposal(
    tmp_path: Path, prefect_api_url: str, ten_team_demo_source: Path
) -> None:
    """A 10-team tournament set up from `antichess-td init` with only the
    docs at hand runs to its knockout proposal. The Lichess data is a 10-team demo's; the TD copies
    its registrations, Swiss pairings and Swiss rulings into the new folder, sets only what the
    file says to set (names, dates) and the replay keys docs/config.md describes, checks, and runs
    `nightly` the night after the Swiss. TEAM-FMT-1: 10 teams → 4 qualify, so the proposal is the
    semifinals, 1 v 4 and 2 v 3 of the Swiss table, in pairings.csv's own columns with windows."""
    demo = ten_team_demo_source  # `antichess-td demo --teams 10 ... --seed 5` (conftest; only read here)
    demo_cfg = tomllib.loads((demo / "tournament.toml").read_text(encoding="utf-8"))

    folder = tmp_path / "ten"
    assert cli("init", str(folder), "--preset", "team-swiss").returncode == 0
    path = folder / "tournament.toml"
    text = path.read_text(encoding="utf-8")
    text = set_key(text, "tournament", "id", '"ten-teams-2026"')
    text = set_key(text, "tournament", "name", '"Ten Teams 2026"')
    text = set_key(text, "tournament", "registration_at", f'"{demo_cfg["tournament"]["registration_at"]}"')
    text = set_key(text, "stages.swiss", "first_round_start", f'"{demo_cfg["stages"]["swiss"]["first_round_start"]}"')
    text = set_key(
        text, "stages.knockout", "first_round_start", f'"{demo_cfg["stages"]["knockout"]["first_round_start"]}"'
    )
    text = set_key(text, "lichess", "replay_data", f'"{(demo / "lichess").as_posix()}"')
    text = set_key(text, "lichess", "replay_games_per_s", "0")
    path.write_text(text, encoding="utf-8")

    teams = (demo / "teams.csv").read_text(encoding="utf-8").splitlines()
    assert teams[0] == "team,player,board,title,captain"
    (folder / "teams.csv").write_text("\n".join(teams) + "\n", encoding="utf-8")
    for name in ("pairings.csv", "overrides.csv"):
        lines = (demo / name).read_text(encoding="utf-8").splitlines()
        header = (folder / name).read_text(encoding="utf-8").splitlines()[0]
        assert lines[0].split(",") == header.split(",")[: len(lines[0].split(","))]
        swiss = [line for line in lines[1:] if line.startswith("swiss,")]
        assert swiss or name == "overrides.csv"
        width = header.count(",") - lines[0].count(",")
        (folder / name).write_text(
            "\n".join([header, *(line + "," * width for line in swiss)]) + "\n", encoding="utf-8"
        )

    proc = cli("check", "--config", str(path))
    assert proc.returncode == 0, proc.stderr
    players = len(teams) - 1
    rulings = len(_rows(folder / "overrides.csv"))
    assert proc.stdout.splitlines() == [
        f"ok: 10 teams, {players} players, 35 pairings, {rulings} ruling{'s' * (rulings != 1)}"
    ]

    cfg = load_config(path)
    swiss = cfg.stage("swiss")
    window = swiss.round_window(swiss.rounds)
    assert window is not None
    now = window[1] + dt.timedelta(days=swiss.window_margin_days, hours=3)
    proc = cli(
        "nightly",
        "--config",
        str(path),
        "--now",
        now.isoformat().replace("+00:00", "Z"),
        env={**os.environ, "PREFECT_API_URL": prefect_api_url},
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]

    table = _rows(cfg.paths.exports / "standings_swiss.csv")
    assert len(table) == 10
    top = [r["entrant"] for r in sorted(table, key=lambda r: int(r["rank"]))[:4]]
    pairings_header = (folder / "pairings.csv").read_text(encoding="utf-8").splitlines()[0]
    proposals = [
        p
        for p in sorted(cfg.paths.exports.glob("*.csv"))
        if p.read_text(encoding="utf-8").splitlines()[:1] == [pairings_header]
    ]
    assert [p.name for p in proposals] != [], "no proposal in pairings.csv's columns under the exports"
    assert len(proposals) == 1
    proposal = proposals[0]
    assert b"\r\n" not in proposal.read_bytes()
    rows = _rows(proposal)
    assert all(r["window_start"] and r["window_end"] for r in rows)
    semis = read_schedule(proposal, cfg, read_teams(cfg.paths.teams, cfg.boards))[0]
    assert [(p.stage, p.round, p.a, p.b) for p in semis] == [
        ("knockout", 1, top[0], top[3]),
        ("knockout", 1, top[1], top[2]),
    ]
