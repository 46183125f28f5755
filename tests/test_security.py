"""Security: SQL values are always bound, and the replay server serves its dataset only.

* Team names are free text a TD types (a Lichess name cannot hold quotes, a team name can): names
  with quotes, semicolons and SQL comments go through ingest, scoring, standings and exports
  unchanged, and no table is harmed.
* The replay server loads its dataset into memory when it starts and routes only the API's
  paths: a request that walks out of the data folder (``..``, encoded or not) gets a 404 JSON
  error, never a file. (That it binds 127.0.0.1 only: tests/sim/test_replay.py.)
"""

from __future__ import annotations

import csv
import http.client
from pathlib import Path

import pytest

from kits.skeleton_kit import SKELETON, copy_skeleton, run_skeleton
from pipeline.sim import replay
from pipeline.store import gateway

NASTY = {
    "Alphas": "Al'phas; DROP TABLE lichess_games; --",
    "Betas": "Be\"tas'); DELETE FROM td_members; --",
    "Gammas": "Gam;mas",
    "Deltas": "O'Delta",
}


def test_names_with_quotes_and_semicolons_are_data_not_sql(tmp_path: Path) -> None:
    dest = copy_skeleton(tmp_path)
    for name in ("teams.csv", "pairings.csv"):
        rows = list(csv.reader((dest / name).read_text(encoding="utf-8").splitlines()))
        with (dest / name).open("w", encoding="utf-8", newline="") as f:
            csv.writer(f).writerows([[NASTY.get(v, v) for v in row] for row in rows])
    (dest / "overrides.csv").write_text(
        "stage,round,subject,action,value,reason\n"
        f'swiss,2,"{NASTY["Alphas"].replace(chr(34), chr(34) * 2)}",armageddon,Gam;mas,"\'; DROP TABLE td_overrides; --"\n',
        encoding="utf-8",
    )
    toml = (dest / "tournament.toml").read_text(encoding="utf-8")
    (dest / "tournament.toml").write_text(
        toml.replace(
            'database = "out/skeleton.duckdb"', 'database = "out/skeleton.duckdb"\noverrides = "overrides.csv"'
        ),
        encoding="utf-8",
    )
    cfg, _ = run_skeleton(dest)
    con = gateway.connect(cfg.paths.database, read_only=True)
    try:
        entrants = {e for (e,) in con.sql("SELECT DISTINCT entrant FROM standings").fetchall()}
        games = con.sql("SELECT count(*) FROM lichess_games").fetchall()[0][0]
        members = con.sql("SELECT count(*) FROM td_members").fetchall()[0][0]
        reasons = con.sql("SELECT reason FROM overrides").fetchall()
        team = con.execute("SELECT DISTINCT team FROM players WHERE team = ?", [NASTY["Alphas"]]).fetchall()
    finally:
        con.close()
    assert entrants == set(NASTY.values())
    assert games > 0 and members == 8
    assert reasons == [("'; DROP TABLE td_overrides; --",)]
    assert team == [(NASTY["Alphas"],)]
    with (cfg.paths.exports / "standings_swiss.csv").open(encoding="utf-8", newline="") as f:
        assert {r["entrant"] for r in csv.DictReader(f)} == set(NASTY.values())


@pytest.fixture(scope="module")
def server() -> replay.ReplayServer:
    with replay.running(SKELETON / "lichess") as s:
        yield s


@pytest.mark.parametrize(
    "path",
    [
        "/../../../../etc/passwd",
        "/api/user/..%2F..%2F..%2Fetc%2Fpasswd/rating-history",
        "/api/user/../../users.ndjson",
        "/api/games/user/..%2F..%2Fgames.ndjson",
        "/api/user/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/rating-history/alice.json",
        "/users.ndjson",
    ],
)
def test_replay_server_refuses_paths_outside_the_api(server: replay.ReplayServer, path: str) -> None:
    host, port = server.base_url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        body = resp.read().decode("utf-8", "replace")
    finally:
        conn.close()
    assert resp.status == 404, (path, resp.status, body[:200])
    assert "root:" not in body and '"username"' not in body and "rating-history" not in body.replace(path, "")
