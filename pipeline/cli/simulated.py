"""The commands over the simulators (``pipeline.sim``, imported only when one of them runs):
``replay-server`` serves a recorded Lichess dataset with the real API's semantics, ``demo`` writes
the demo tournament. Registered on the ``antichess-td`` app by ``pipeline.cli.app``.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from pipeline.cli.options import NowOpt, parse_now, say
from pipeline.errors import InputError

TokensOpt = Annotated[
    Path | None,
    typer.Option(
        "--tokens",
        help='A JSON object of test tokens and their scopes, e.g. {"lip_td": ["team:lead"]}: other tokens '
        "get 401, a missing scope 403. Unset: every token has every scope.",
        dir_okay=False,
    ),
]

RecordOpt = Annotated[
    Path | None,
    typer.Option(
        "--record",
        help="Append one NDJSON line per finished request to this file (its lane, method, path, status and "
        "monotonic start and end; never the token), flushed as each request ends.",
        dir_okay=False,
    ),
]


def replay_server(
    data: Annotated[
        Path, typer.Option("--data", help="A Lichess dataset folder (users.ndjson, rating-history/, games.ndjson).")
    ],
    port: Annotated[int, typer.Option("--port", help="TCP port on 127.0.0.1 (0 picks a free one).")] = 8080,
    now: NowOpt = None,
    games_per_s: Annotated[
        float, typer.Option(help="Games per second per stream, as Lichess serves a token holder; 0 = no throttle.")
    ] = 30.0,
    max_downloads: Annotated[
        int, typer.Option(help="Concurrent game downloads allowed; more get HTTP 429 (Lichess: 2).")
    ] = 2,
    token_check: Annotated[
        bool, typer.Option(help="Answer [] to rating-history requests without a token, as Lichess does.")
    ] = True,
    fault_429: Annotated[float, typer.Option(help="Share of requests answered 429.")] = 0.0,
    fault_5xx: Annotated[float, typer.Option(help="Share of requests answered 502.")] = 0.0,
    fault_5xx_burst: Annotated[
        int, typer.Option(help="Length of 5xx bursts: N requests in a row answered 502/503 (0 = none).")
    ] = 0,
    fault_5xx_burst_rate: Annotated[
        float, typer.Option(help="Share of requests that start a 5xx burst (with --fault-5xx-burst).")
    ] = 0.05,
    fault_cut: Annotated[float, typer.Option(help="Share of game streams cut at a random byte.")] = 0.0,
    fault_stall: Annotated[float, typer.Option(help="Share of game streams that stall mid-way.")] = 0.0,
    stall_s: Annotated[
        float, typer.Option(help="How long a stall lasts (make it longer than the client timeout).")
    ] = 60.0,
    retry_after_s: Annotated[int, typer.Option(help="Retry-After sent with an injected 429.")] = 60,
    seed: Annotated[int, typer.Option(help="Seed of the fault draws (same seed, same faults).")] = 0,
    tokens: TokensOpt = None,
    record: RecordOpt = None,
) -> None:
    """Serve a recorded Lichess dataset on 127.0.0.1 with the real API's semantics.

    Also takes team messages and inbox messages (POST /team/{id}/pm-all, POST /inbox/{name}) with
    Lichess's scopes and rate limits; lists them at GET /_replay/messages, every request answered at /_replay/requests."""
    from pipeline.sim import replay

    at = parse_now(now) if now else None
    faults = replay.Faults(
        rate_429=fault_429,
        rate_5xx=fault_5xx,
        burst_5xx=fault_5xx_burst,
        rate_5xx_burst=fault_5xx_burst_rate,
        rate_cut=fault_cut,
        rate_stall=fault_stall,
        stall_s=stall_s,
        retry_after_s=retry_after_s,
        seed=seed,
    )
    options = replay.ReplayOptions(
        games_per_s=games_per_s,
        max_downloads=max_downloads,
        history_needs_token=token_check,
        faults=faults,
        token_scopes=None if tokens is None else replay.read_token_scopes(tokens),
        record=record,
    )
    _serve(replay.ReplayServer(replay.Dataset.load(data), port=port, now=at, options=options), data)


def _serve(server: Any, data: Path) -> None:
    """Serve until Ctrl-C or SIGTERM (exit 0)."""
    say(f"serving {data} on {server.base_url} (Ctrl-C to stop)")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


LeagueOpt = Annotated[
    bool,
    typer.Option(
        "--league",
        help="Also write a league (league.toml) of three tournaments sharing players and the Lichess data: the "
        "TEAM season, a 2-board pairs event and a board-1 individual event, both derived from the season's games.",
    ),
]


def demo(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the demo tournament into.")],
    seed: Annotated[int, typer.Option("--seed", help="Same seed, byte-identical files.")] = 2026,
    teams: Annotated[int, typer.Option("--teams", help="Teams in the TEAM season (even, at least 10).")] = 12,
    history_games: Annotated[
        str,
        typer.Option(
            "--history-games",
            help="Rated antichess games per player, MIN-MAX (below 1000 most players also fall short of TEAM-ELIG-2; PLANTED.csv lists only the planted cases).",
        ),
    ] = "1000-5000",
    stored_games: Annotated[
        str,
        typer.Option(
            "--stored-games",
            help="Of an account older than the stored 2.5 years, the history games played in them, MIN-MAX "
            "(the rest are counted on its profile only, as a real account's older games are), or 'all'.",
        ),
    ] = "150-300",
    acwc_players: Annotated[int, typer.Option("--acwc-players", help="Players in the ACWC 2021 qualification.")] = 40,
    swiss_rounds: Annotated[
        int,
        typer.Option(
            "--swiss-rounds",
            help="Swiss rounds of the TEAM season (7 as the preset, up to teams - 1; more push the knockout back).",
        ),
    ] = 7,
    dumps: Annotated[
        bool,
        typer.Option(
            "--dumps",
            help="Also write the Lichess data as monthly open-database dumps (lichess/dumps/*.pgn.zst, for "
            "`antichess-td backfill`): the rated games plus ten times as many of unregistered players.",
        ),
    ] = False,
    league: LeagueOpt = False,
) -> None:
    """Write the demo tournament: a TEAM season and an ACWC 2021 qualification with their Lichess data.
    Writes nothing else (no Prefect home: the first nightly run creates it), so the same options
    give byte-identical folders."""
    import time

    from pipeline.sim.season import build_season

    (lo, hi), stored = _demo_sizes(history_games, stored_games, teams, swiss_rounds)
    started = time.perf_counter()
    summary = build_season(out, seed, teams, (lo, hi), acwc_players, swiss_rounds, dumps=dumps, stored=stored)
    say(
        f"wrote {out}: {summary['players']} players, {summary['games']:,} games, {summary['teams']} teams, "
        f"{summary['swiss_rounds']} Swiss rounds, {summary['acwc_players']} ACWC players, {summary['planted']} planted violations, {summary['traps']} traps "
        f"in {time.perf_counter() - started:.1f} s"
    )
    if dumps:
        say(
            f"dumps: {summary['dump_files']} monthly files in {out / 'lichess' / 'dumps'}: "
            f"{summary['dump_games']:,} rated games of the demo's world + {summary['dump_others']:,} of unregistered players"
        )
    if league:
        _demo_league(out)
    say(f"run: antichess-td nightly --config {out / 'tournament.toml'}  (and {out / 'acwc' / 'tournament.toml'})")


def _demo_league(out: Path) -> None:
    """``demo --league``: the league demo beside the season just written (pipeline.sim.season.league_demo)."""
    from pipeline.sim.season.league_demo import write_league

    sizes = write_league(out)
    say(
        f"league: {out / 'league.toml'}: the season, its pairs event ({sizes['pairs_teams']} teams of 2) and "
        f"its board-1 event ({sizes['board1_players']} players), derived from the season's games"
    )


def _demo_sizes(
    history_games: str, stored_games: str, teams: int, swiss_rounds: int
) -> tuple[tuple[int, int], tuple[int, int] | None]:
    """``demo``'s sizes checked: the history games and the stored games (None: all) as MIN-MAX
    pairs, or one line naming the option and what it expects (exit 2)."""
    history = _min_max("--history-games", history_games, "1000-5000")
    stored = (
        None if stored_games.strip().lower() == "all" else _min_max("--stored-games", stored_games, "150-300", "all")
    )
    if teams < 10 or teams % 2:
        raise InputError("--teams", "", f"{teams}: expected an even number of at least 10 (TEAM-FMT-1)")
    if not 7 <= swiss_rounds < teams:
        raise InputError(
            "--swiss-rounds",
            "",
            f"{swiss_rounds}: expected 7 (the planted cases use rounds 1-7) to "
            f"{teams - 1} (one round fewer than the teams: no rematches)",
        )
    return history, stored


def _min_max(option: str, text: str, example: str, alternative: str = "") -> tuple[int, int]:
    """A MIN-MAX option (0 < MIN <= MAX), or one line naming the option and what it expects (exit 2)."""
    try:
        lo, hi = (int(x) for x in text.split("-", 1))
    except ValueError:
        lo = hi = -1
    if not 0 < lo <= hi:
        also = f", or {alternative}" if alternative else ""
        raise InputError(option, "", f"{text!r}: expected MIN-MAX such as {example} (0 < MIN <= MAX){also}")
    return lo, hi
