"""``league.toml``: several tournaments served together (docs/td-guide.md, Running a league).

::

    [league]
    id = "antichess-league"            # names the league's Prefect limits; tags its deployments
    store = "league.duckdb"            # the shared store of Lichess data (relative to this file)
    fresh_minutes = 120                # what the league fetched this recently is not fetched again
    tournaments = ["team/tournament.toml", "acwc/tournament.toml"]

:func:`load_league` validates it (one line naming the file and the key, exit 2, as for
``tournament.toml``) and every tournament it lists; :func:`league_of_configs` makes the league of
``antichess-td serve --config A --config B`` (no league file: its store beside the configs).
"""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from pipeline.errors import InputError
from pipeline.inputs.config import _read_toml, load_config
from pipeline.inputs.config_values import Text, TomlPath, _doc, number
from pipeline.model import Config, League

DEFAULT_STORE = "league.duckdb"
DEFAULT_FRESH_MINUTES = 120.0
LEAGUE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


class _LeagueTable(BaseModel):
    """The league: its id, its shared store and its tournaments."""

    model_config = ConfigDict(strict=True, extra="forbid", validate_default=True)

    id: Text = _doc(
        ..., "A short id such as `antichess-league` (lower case, digits, - and _); names the league's Prefect limits."
    )
    store: TomlPath = _doc(
        DEFAULT_STORE,
        "The league's shared store of Lichess data (profiles, rating histories, games, what was fetched when), "
        "relative to this file.",
    )
    fresh_minutes: float = number(
        DEFAULT_FRESH_MINUTES,
        "Lichess data the league fetched less than this many minutes ago is read from the store by its other "
        "tournaments instead of being fetched again (keep it above the span of one night's runs).",
        minimum=1,
    )
    tournaments: list[TomlPath] = _doc(
        ...,
        "The tournaments' tournament.toml files, relative to this file; each keeps its own database, exports and site.",
    )


class _LeagueDocument(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    league: _LeagueTable


def league_key_specs() -> list[tuple[str, str, str]]:
    """(key, default as written in TOML, description) of every league.toml key, for docs/config.md."""
    out = []
    for name, field in _LeagueTable.model_fields.items():
        default = "(required)" if field.is_required() else _toml(field.default)
        out.append((f"league.{name}", default, field.description or ""))
    return out


def _toml(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def load_league(path: Path | str) -> League:
    """Load and validate a league file and the tournaments it lists (raises InputError naming the
    file and the key, or the tournament's own file and key)."""
    path = Path(path)
    doc = _read_toml(path)
    try:
        d = _LeagueDocument.model_validate(doc)
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        if first["type"] == "extra_forbidden":
            raise InputError(path, f"key '{loc}'", f"unknown key: expected one of {_expected(first['loc'])}") from None
        if first["type"] == "missing":
            raise InputError(path, f"key '{loc}'", "missing: expected a value") from None
        raise InputError(path, f"key '{loc}'", f"{first['msg']}, got {first.get('input')!r}") from None
    t = d.league
    if not LEAGUE_ID.match(t.id):
        raise InputError(path, "key 'league.id'", f"expected lower-case letters, digits, - and _, got {t.id!r}")
    if not t.tournaments:
        raise InputError(path, "key 'league.tournaments'", "expected at least one tournament.toml")
    base = path.parent
    configs = tuple(_resolve(base, p) for p in t.tournaments)
    league = League(t.id, path.resolve(), _resolve(base, t.store), dt.timedelta(minutes=t.fresh_minutes), configs)
    check_tournaments(league, path)
    return league


def _expected(loc: tuple[Any, ...]) -> str:
    keys = _LeagueTable.model_fields if len(loc) > 1 else _LeagueDocument.model_fields
    return ", ".join(sorted(keys))


def _resolve(base: Path, p: str) -> Path:
    q = Path(p)
    return (q if q.is_absolute() else base / q).resolve()


def league_of_configs(configs: list[Path]) -> League:
    """The league of several ``--config`` given without a league file: id ``league``, its store
    ``league.duckdb`` in the folder the configs share."""
    resolved = tuple(Path(c).resolve() for c in configs)
    common = Path(os.path.commonpath([c.parent for c in resolved]))
    league = League("league", None, common / DEFAULT_STORE, dt.timedelta(minutes=DEFAULT_FRESH_MINUTES), resolved)
    check_tournaments(league, resolved[0])
    return league


def check_tournaments(league: League, where: Path) -> list[Config]:
    """Load every tournament of the league (each one's own errors name its file); two with the same
    ``tournament.id`` or the same working database are refused, naming `where`."""
    loaded = [load_config(c) for c in league.configs]
    seen_ids: dict[str, Path] = {}
    seen_dbs: dict[Path, Path] = {}
    for config in loaded:
        other = seen_ids.setdefault(config.tournament_id, config.path)
        if other != config.path:
            raise InputError(
                where,
                "key 'league.tournaments'",
                f"{other} and {config.path} share the tournament id {config.tournament_id!r}: expected one deployment "
                "name per tournament",
            )
        db = config.paths.database.resolve()
        other = seen_dbs.setdefault(db, config.path)
        if other != config.path:
            raise InputError(
                where,
                "key 'league.tournaments'",
                f"{other} and {config.path} share the database {db}: expected one working database per tournament",
            )
    return loaded


def league_parameter(league: League) -> dict[str, Any]:
    """The league as a flow parameter (JSON): what a deployment's runs need to find it."""
    return {
        "id": league.league_id,
        "path": None if league.path is None else str(league.path),
        "store": str(league.store),
        "fresh_minutes": league.fresh / dt.timedelta(minutes=1),
        "configs": [str(c) for c in league.configs],
    }


def league_from_parameter(p: dict[str, Any]) -> League:
    """The inverse of :func:`league_parameter`."""
    return League(
        str(p["id"]),
        None if p.get("path") is None else Path(p["path"]),
        Path(p["store"]),
        dt.timedelta(minutes=float(p["fresh_minutes"])),
        tuple(Path(c) for c in p["configs"]),
    )
