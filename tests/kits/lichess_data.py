"""Writing small Lichess datasets (the dataset format of docs/ingestion.md) for tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_dataset(
    folder: Path, users: list[dict[str, Any]], games: list[dict[str, Any]], histories: dict[str, Any]
) -> Path:
    """users.ndjson, games.ndjson and rating-history/<id>.json under `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "users.ndjson").write_text("".join(json.dumps(u) + "\n" for u in users), encoding="utf-8")
    (folder / "games.ndjson").write_text("".join(json.dumps(g) + "\n" for g in games), encoding="utf-8")
    (folder / "rating-history").mkdir(exist_ok=True)
    for uid, hist in histories.items():
        (folder / "rating-history" / f"{uid}.json").write_text(json.dumps(hist), encoding="utf-8")
    return folder
