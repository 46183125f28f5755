"""The replay server's lean games (pipeline/sim/stored_games.py): each loaded game reads as the
object its recorded line parses to, and its line is served byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.errors import InputError
from pipeline.sim import replay
from pipeline.sim.stored_games import StoredGame, side

SKELETON = Path(__file__).resolve().parents[1] / "data" / "skeleton" / "lichess"


def test_every_loaded_game_reads_as_its_recorded_line_parses() -> None:
    lines = [line for line in (SKELETON / "games.ndjson").read_bytes().split(b"\n") if line.strip()]
    by_id = {json.loads(line)["id"]: line for line in lines}
    ds = replay.Dataset.load(SKELETON)
    assert len(ds.games) == len(lines)
    for g in ds.games:
        assert isinstance(g, StoredGame)
        recorded = json.loads(by_id[g["id"]])
        assert dict(g.items()) == recorded and list(g) == list(recorded)  # every field, in order
        assert g.line() == by_id[g["id"]] + b"\n"
        for color in ("white", "black"):
            p = recorded["players"][color]
            assert side(g, color) == (p.get("user", {}).get("id"), p.get("rating"), p.get("ratingDiff"))
        with pytest.raises(KeyError):
            g["no such field"]


def test_crlf_lines_and_blank_lines_read_as_the_same_games(tmp_path: Path) -> None:
    game = {
        "id": "abcdefgh",
        "createdAt": 5,
        "status": "mate",
        "players": {"white": {"user": {"id": "a"}}},
        "moves": "e3",
    }
    (tmp_path / "users.ndjson").write_text('{"id": "a"}\n')
    (tmp_path / "games.ndjson").write_bytes(b"\n" + json.dumps(game).encode() + b"\r\n\n")
    (g,) = replay.Dataset.load(tmp_path).games
    assert dict(g.items()) == game and g.line() == json.dumps(game).encode() + b"\n"
    assert side(g, "black") == (None, None, None) and side(g, "white") == ("a", None, None)


@pytest.mark.parametrize(("body", "why"), [(b"{not json\n", "not valid JSON"), (b"[1]\n", "expected a JSON object")])
def test_a_bad_line_stops_the_load_with_its_line_number(tmp_path: Path, body: bytes, why: str) -> None:
    (tmp_path / "users.ndjson").write_text('{"id": "a"}\n')
    (tmp_path / "games.ndjson").write_bytes(b'{"id": "abcdefgh"}\n' + body)
    with pytest.raises(InputError) as e:
        replay.Dataset.load(tmp_path)
    assert "line 2" in str(e.value) and why in str(e.value)
