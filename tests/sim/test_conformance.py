"""Replay-server conformance with real Lichess responses (tests/data/reference/lichess-api-examples,
the examples published with the Lichess API specification; PROVENANCE.md there says where each is from).

Two checks:
1. served through the replay server, the recorded responses come back with the same key sets
   and JSON types as recorded (plus `url` on GET /api/user, as lichess.org adds it);
2. the bundled demo dataset uses only keys that real responses have, with the same JSON types,
   and never omits a key the pipeline reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests

from pipeline.sim import replay

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests" / "data" / "reference" / "lichess-api-examples"
DEMO = ROOT / "tests" / "data" / "season" / "lichess"
AUTH = {"Authorization": "Bearer test-token"}


def shape(value: Any, path: str = "$") -> dict[str, str]:
    """Every key path of a JSON value with its JSON type (lists: the shape of their elements)."""
    kind = {
        dict: "object",
        list: "array",
        str: "string",
        bool: "boolean",
        int: "number",
        float: "number",
        type(None): "null",
    }[type(value)]
    out = {path: kind}
    if isinstance(value, dict):
        for k, v in value.items():
            out |= shape(v, f"{path}.{k}")
    elif isinstance(value, list):
        for v in value:
            out |= shape(v, f"{path}[]")
    return out


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    assert EXAMPLES.is_dir(), f"{EXAMPLES} is missing: the conformance test needs the recorded responses"
    users = json.loads((EXAMPLES / "users-by-ids_POST-api-users_prod.json").read_text(encoding="utf-8"))
    mary = json.loads((EXAMPLES / "user-public_mary_DEVSERVER.json").read_text(encoding="utf-8"))
    history = json.loads((EXAMPLES / "rating-history_mary_DEVSERVER.json").read_text(encoding="utf-8"))
    game = json.loads((EXAMPLES / "games-user_lance5500_max1_prod.ndjson").read_text(encoding="utf-8").splitlines()[0])
    return {"users": users, "mary": mary, "history": history, "game": game}


@pytest.fixture(scope="module")
def server(recorded: dict[str, Any], tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("recorded")
    lance = {"id": "lance5500", "username": "Lance5500", "createdAt": 1500000000000, "perfs": {}}
    mary = {k: v for k, v in recorded["mary"].items() if k != "url"}
    lines = [json.dumps(u) for u in [*recorded["users"], mary, lance]]
    (folder / "users.ndjson").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "rating-history").mkdir()
    (folder / "rating-history" / "mary.json").write_text(json.dumps(recorded["history"]), encoding="utf-8")
    (folder / "games.ndjson").write_text(json.dumps(recorded["game"]) + "\n", encoding="utf-8")
    with replay.running(folder, options=replay.ReplayOptions(games_per_s=0)) as s:
        yield s


def test_users_by_id_round_trip_shapes(server: replay.ReplayServer, recorded: dict[str, Any]) -> None:
    got = requests.post(f"{server.base_url}/api/users", data="thibault,maia1,maia5", timeout=5).json()
    assert [shape(u) for u in got] == [shape(u) for u in recorded["users"]]


def test_user_public_round_trip_shape(server: replay.ReplayServer, recorded: dict[str, Any]) -> None:
    got = requests.get(f"{server.base_url}/api/user/mary", timeout=5).json()
    assert shape(got) == shape(recorded["mary"])  # including `url`, which lichess.org adds here


def test_rating_history_round_trip_shape(server: replay.ReplayServer, recorded: dict[str, Any]) -> None:
    got = requests.get(f"{server.base_url}/api/user/mary/rating-history", headers=AUTH, timeout=5).json()
    assert shape(got) == shape(recorded["history"])
    assert [p["name"] for p in got] == [p["name"] for p in recorded["history"]]


def test_games_export_round_trip_shape(server: replay.ReplayServer, recorded: dict[str, Any]) -> None:
    r = requests.get(f"{server.base_url}/api/games/user/lance5500", params={"opening": "true"}, timeout=5)
    assert r.headers["Content-Type"] == "application/x-ndjson"
    [line] = [ln for ln in r.text.splitlines() if ln.strip()]
    assert shape(json.loads(line)) == shape(recorded["game"])


READ_BY_PIPELINE = {
    "game": {
        "$.id",
        "$.rated",
        "$.variant",
        "$.createdAt",
        "$.lastMoveAt",
        "$.status",
        "$.players.white.user.id",
        "$.players.black.user.id",
        "$.players.white.rating",
        "$.clock.initial",
        "$.clock.increment",
        "$.moves",
        "$.pgn",
    },
    "user": {
        "$.id",
        "$.username",
        "$.createdAt",
        "$.perfs.antichess.games",
        "$.perfs.antichess.rating",
        "$.perfs.antichess.rd",
    },
}


def test_demo_dataset_uses_real_keys_and_types(recorded: dict[str, Any]) -> None:
    real_game = shape(recorded["game"]) | {
        "$.pgn": "string",
        "$.players.white.ratingDiff": "number",
        "$.players.black.ratingDiff": "number",
    }  # pgnInJson; rated games
    real_user: dict[str, str] = {}
    for u in [*recorded["users"], recorded["mary"]]:
        real_user |= shape(u)
    with (DEMO / "games.ndjson").open(encoding="utf-8") as f:
        for line in list(f)[:300]:
            g = shape(json.loads(line))
            assert READ_BY_PIPELINE["game"] <= set(g)
            extra = {k: v for k, v in g.items() if real_game.get(k) != v}
            assert extra == {}, extra
    with (DEMO / "users.ndjson").open(encoding="utf-8") as f:
        for line in f:
            u = shape(json.loads(line))
            assert READ_BY_PIPELINE["user"] <= set(u)
            extra = {k: v for k, v in u.items() if real_user.get(k) != v}
            assert extra == {}, extra


def test_games_export_by_ids_round_trip_shape(tmp_path: Path) -> None:
    """POST /api/games/export/_ids of the replay server serving the game lichess.org answered that
    request with: the same line shape, NDJSON; an id it does not know is left out."""
    line = (EXAMPLES / "games-export-ids_TJxUmbWK_prod.ndjson").read_text(encoding="utf-8").splitlines()[0]
    recorded = json.loads(line)
    (tmp_path / "users.ndjson").write_text("", encoding="utf-8")
    (tmp_path / "games.ndjson").write_text(line + "\n", encoding="utf-8")
    with replay.running(tmp_path, options=replay.ReplayOptions(games_per_s=0)) as server:
        r = requests.post(
            f"{server.base_url}/api/games/export/_ids",
            params={"opening": "true"},
            data="nonexist,TJxUmbWK",
            headers={"Accept": "application/x-ndjson"},
            timeout=5,
        )
    assert r.headers["Content-Type"] == "application/x-ndjson"
    [got] = [json.loads(x) for x in r.text.splitlines() if x.strip()]
    assert shape(got) == shape(recorded)
