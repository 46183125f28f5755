"""``tournament.toml``: loaded with tomllib, validated with pydantic, built into the frozen types of
``pipeline.model``.

A tournament file names a preset (``data/presets/<name>.toml``) and overrides any of its
values: tables merge key by key, everything else (numbers, strings, arrays such as a
stage's ``parts``) is replaced whole. Unknown keys are errors, so a typo never silently
falls back to a default. Every error names the file, the dotted key and what was expected.

The pydantic models of :mod:`pipeline.inputs.config_schema` are the one statement of the file's
shape: each key's type, limits, default (written as in TOML) and description. This module
validates the document against them; ``key_specs`` walks them for the generated reference
(docs/config.md); ``_problem`` turns pydantic's first error into this project's message
(``expected <what the key takes>, got <the value as written>``). What pydantic cannot say (a
time's UTC offset, a clock, a cron line) is checked by the validators of
:mod:`pipeline.inputs.config_values`, which raise the final message themselves; rules that span
keys (draw at most win, one part per clock, the working database beside the published one) are
checked here while building the model.

Pure: reads files, no network, database, clock or environment.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import tomllib
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from pipeline.errors import InputError
from pipeline.inputs.config_schema import _Composition, _Document, _Lichess, _Notify, _Paths, _Stage, _Table
from pipeline.inputs.config_values import _Shape
from pipeline.model import (
    AllowedSwap,
    Attention,
    Composition,
    Conduct,
    Config,
    Eligibility,
    EventKind,
    LichessNotify,
    LichessSource,
    MatchPoints,
    Notify,
    Part,
    Paths,
    RatingCap,
    Schedule,
    Seeding,
    Site,
    Stage,
    TimeControl,
    Webhook,
)
from pipeline.resources import PRESETS_DIR

# --------------------------------------------------------------------------- loading


def load_config(path: Path | str) -> Config:
    """Load and validate a tournament config (raises InputError naming file and key)."""
    path = Path(path)
    doc = _read_toml(path)
    preset_name = doc.get("preset")
    if preset_name is None:
        merged = doc
        preset_name = ""
    else:
        if not isinstance(preset_name, str):
            raise InputError(path, "key 'preset'", f"expected a preset name, got {preset_name!r}")
        preset_path = PRESETS_DIR / f"{preset_name}.toml"
        if not preset_path.is_file():
            known = ", ".join(sorted(p.stem for p in PRESETS_DIR.glob("*.toml")))
            raise InputError(path, "key 'preset'", f"unknown preset {preset_name!r}: expected one of {known}")
        merged = _merge(_read_toml(preset_path), {k: v for k, v in doc.items() if k != "preset"})
    return _build(path, preset_name, merged)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise InputError(path, "", "file not found") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(path, "", f"not valid TOML: {e}") from e


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


# --------------------------------------------------------------------------- the keys, for docs and errors


@dataclass(frozen=True)
class KeySpec:
    """One key as the loader reads it: the reference (docs/config.md) is generated from these, so a
    key cannot be accepted without being documented. ``key`` is dotted, with ``<name>`` for a stage
    and ``[]`` for an array item; ``default`` is the loader's own (``...``: the key is required)."""

    key: str
    kind: str
    default: Any
    doc: str


@dataclass(frozen=True)
class _Key:
    spec: KeySpec
    expected: str  # what an error says the key takes
    keys: tuple[str, ...] = ()  # a table's own keys (for "unknown key: expected one of ...")


def _bare(annotation: Any, keep_annotated: bool = False) -> Any:
    """``int | None`` → ``int``; ``Annotated[str, ...]`` → ``str`` (unless ``keep_annotated``)."""
    if get_origin(annotation) in (Union, types.UnionType):
        annotation = next(a for a in get_args(annotation) if a is not type(None))
    if get_origin(annotation) is Annotated and not keep_annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _describe(field: FieldInfo) -> tuple[str, str]:
    """The key's type as the reference shows it and what its error says it expects."""
    optional = _bare(field.annotation, keep_annotated=True)  # `Text | None`: the shape is inside
    inner = get_args(optional)[1:] if get_origin(optional) is Annotated else ()
    shape = next((m for m in (*field.metadata, *inner) if isinstance(m, _Shape)), None)
    if shape is not None:
        return shape.kind, shape.expected
    annotation = _bare(field.annotation)
    low = next((m.ge for m in field.metadata if isinstance(m, annotated_types.Ge)), 0)
    high = next((m.le for m in field.metadata if isinstance(m, annotated_types.Le)), None)
    if get_origin(annotation) is Literal:
        options = get_args(annotation)
        return " / ".join(f'"{o}"' for o in options), f"one of {', '.join(options)}"
    if annotation is bool:
        return "true / false", "true or false"
    if annotation is int and high is not None:
        return f"whole number {low}–{high}", f"a whole number from {low} to {high}"
    if annotation is int:
        return f"whole number ≥ {low}", f"a whole number of at least {low}"
    if annotation is float:
        return f"number ≥ {low:g}", f"a number of at least {low:g}"
    return "string", "a non-empty string"


def _table_of(annotation: Any) -> tuple[type[_Table] | None, str]:
    """The table a key holds: itself (``""``), each item of a list (``"[]"``) or each value of a
    dict (``".<name>"``); None for a value."""
    args = get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, _Table):
        return annotation, ""
    if get_origin(annotation) is list and args and isinstance(args[0], type) and issubclass(args[0], _Table):
        return args[0], "[]"
    if get_origin(annotation) is dict:
        return args[1], ".<name>"
    return None, ""


def _walk(model: type[_Table], prefix: str = "") -> Iterator[_Key]:
    """Every key of a table and of the tables inside it, in declaration (reading) order."""
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        default = ... if field.default is PydanticUndefined else field.default
        table, item = _table_of(_bare(field.annotation))
        if table is None or item == "[]":
            kind, expected = _describe(field)
            yield _Key(KeySpec(key, kind, default, field.description or ""), expected)
        else:
            keys = tuple(table.model_fields) if item == "" else ()
            yield _Key(KeySpec(key, "table", default, field.description or ""), "a table", keys)
        if table is None:
            continue
        if item:
            keys = tuple(table.model_fields)
            yield _Key(KeySpec(key + item, "table", ..., table.__doc__ or ""), "a table", keys)
        yield from _walk(table, f"{key}{item}.")


def key_specs() -> list[KeySpec]:
    """Every key tournament.toml takes (``preset`` aside), tables before their keys; the list
    items (``parts[]``) are internal and left out."""
    return [k.spec for k in _walk(_Document) if not k.spec.key.endswith("[]")]


_KEYS = {k.spec.key: k for k in _walk(_Document)}


# --------------------------------------------------------------------------- pydantic's errors → messages


def _dotted(loc: tuple[int | str, ...]) -> str:
    """``("stages", "swiss", "parts", 2, "games")`` → ``stages.swiss.parts[2].games``."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")


def _generic_key(dotted: str) -> str:
    """``stages.swiss.parts[2].games`` → ``stages.<name>.parts[].games``."""
    return re.sub(r"\[\d+\]", "[]", re.sub(r"^stages\.[^.\[]+", "stages.<name>", dotted))


def _written(doc: Any, loc: tuple[int | str, ...]) -> Any:
    for part in loc:
        doc = doc[part]
    return doc


def _problem(file: Path, doc: dict[str, Any], error: ValidationError) -> InputError:
    """The message for the first error pydantic found (fields in reading order, then a table's
    unknown keys; of several unknown keys the first in sorted order)."""
    first = error.errors()[0]
    loc = tuple(first["loc"])
    if first["type"] == "extra_forbidden":
        siblings = [e["loc"] for e in error.errors() if e["type"] == "extra_forbidden" and e["loc"][:-1] == loc[:-1]]
        loc = min(siblings, key=lambda s: str(s[-1]))
        table = _KEYS[_generic_key(_dotted(loc[:-1]))].keys if len(loc) > 1 else tuple(_Document.model_fields)
        return _fail(file, loc, f"unknown key: expected one of {', '.join(sorted(table))}")
    if first["type"] == "missing":
        return _fail(file, loc, "missing: expected a value")
    if first["type"] == "config":
        return _fail(file, loc, first["msg"])
    if first["type"] in ("model_type", "dict_type"):
        return _fail(file, loc, f"expected a table, got {first['input']!r}")
    # a value of the wrong type or out of range: the innermost key that has a description (a list's
    # item is judged as the whole list), with the value as written
    while loc and (_generic_key(_dotted(loc)) not in _KEYS or _generic_key(_dotted(loc)).endswith("[]")):
        loc = loc[:-1]
    expected = _KEYS[_generic_key(_dotted(loc))].expected
    return _fail(file, loc, f"expected {expected}, got {_written(doc, loc)!r}")


def _fail(file: Path, loc: tuple[int | str, ...] | str, expected: str) -> InputError:
    return InputError(file, f"key '{loc if isinstance(loc, str) else _dotted(loc)}'", expected)


# --------------------------------------------------------------------------- the frozen Config


def _build(file: Path, preset: str, doc: dict[str, Any]) -> Config:
    try:
        d = _Document.model_validate(doc)
    except ValidationError as e:
        raise _problem(file, doc, e) from None
    t = d.tournament
    if not d.stages:
        raise _fail(file, "stages", "expected at least one stage")
    if d.seeding.rating_at is not None and d.seeding.peak_since is not None:
        if d.seeding.peak_since >= d.seeding.rating_at:
            raise _fail(
                file,
                "seeding.peak_since",
                f"expected a time before seeding.rating_at {d.seeding.rating_at.isoformat()}, "
                f"got {d.seeding.peak_since.isoformat()}",
            )
    rating_cap = RatingCap(**dict(d.rating_cap))
    return Config(
        path=file,
        preset=preset,
        tournament_id=t.id,
        name=t.name or t.id,
        kind=t.kind,
        boards=t.boards if t.boards is not None else (1 if t.kind == "individual" else 4),
        registration_at=t.registration_at,
        lichess=_lichess(d.lichess, file.resolve().parent, t.registration_at, rating_cap),
        paths=_paths(file, d.paths, t.kind),
        stages=tuple(_stage(file, name, s) for name, s in d.stages.items()),
        eligibility=Eligibility(**dict(d.eligibility)),
        rating_cap=rating_cap,
        composition=_composition(d.composition),
        champion=t.champion,
        runner_up=t.runner_up,
        schedule=Schedule(**dict(d.schedule)),
        seeding=Seeding(**dict(d.seeding)),
        conduct=Conduct(**dict(d.conduct)),
        site=Site(**dict(d.site)),
        attention=Attention(**dict(d.attention)),
        notify=_notify(file, d.notify),
    )


def _notify(file: Path, n: _Notify) -> Notify:
    seen: set[str] = set()
    for i, w in enumerate(n.webhooks):
        if w.url_env in seen:
            raise _fail(
                file, f"notify.webhooks[{i}].url_env", f"{w.url_env!r} appears twice: expected one webhook per variable"
            )
        seen.add(w.url_env)
    li = n.lichess
    if li.announce and li.team is None:
        raise _fail(
            file, "notify.lichess.team", "missing: announcements (notify.lichess.announce) need the Lichess team id"
        )
    if li.reminders and not li.reminder_players:
        raise _fail(
            file,
            "notify.lichess.reminder_players",
            'expected the players who opted in (Lichess names, or "all"): notify.lichess.reminders is true',
        )
    return Notify(
        webhooks=tuple(Webhook(w.url_env, w.format) for w in n.webhooks),
        timeout_s=n.timeout_s,
        lichess=LichessNotify(
            team=li.team,
            announce=tuple(dict.fromkeys(li.announce)),
            standings_top=li.standings_top,
            reminders=li.reminders,
            reminder_hours=li.reminder_hours,
            reminder_players=li.reminder_players,
        ),
    )


def _lichess(li: _Lichess, base: Path, registration_at: dt.datetime | None, cap: RatingCap) -> LichessSource:
    return LichessSource(
        **{
            **dict(li),
            "base_url": li.base_url.rstrip("/"),
            "replay_data": None if li.replay_data is None else base / li.replay_data,
            "history_since": li.history_since or default_history_since(registration_at, cap),
        }
    )


def _paths(file: Path, p: _Paths, kind: EventKind) -> Paths:
    """The paths relative to the tournament.toml's folder (an absolute path stays as it is), with
    the working database and Prefect's home beside the published database unless set."""
    base = file.resolve().parent
    resolved: dict[str, Any] = {k: None if v is None else base / v for k, v in dict(p).items()}
    paths = Paths(**resolved)
    if paths.work_database is None:
        paths = dataclasses.replace(paths, work_database=paths.database.with_name(f"{paths.database.stem}.work.duckdb"))
    if paths.prefect_home is None:
        paths = dataclasses.replace(paths, prefect_home=default_prefect_home(paths.database))
    if paths.work_database == paths.database:
        raise _fail(
            file,
            "paths.work_database",
            f"{paths.database}: expected a file other than paths.database "
            "(runs write the working copy and publish it onto paths.database)",
        )
    if paths.site is None:
        paths = dataclasses.replace(paths, site=base / "out" / "site")
    if paths.site_private is None:
        paths = dataclasses.replace(paths, site_private=paths.database.parent / "site-private")
    assert paths.site is not None and paths.site_private is not None
    for key, folder in (("paths.site", paths.site), ("paths.site_private", paths.site_private)):
        # a site build replaces its folder whole: nothing else may live in it
        inside = [
            f"{name} ({f})"
            for name, f in (
                ("the tournament.toml", file.resolve()),
                ("paths.database", paths.database),
                ("paths.work_database", paths.work_database),
                ("paths.exports", paths.exports),
            )
            if f is not None and f.resolve().is_relative_to(folder.resolve())
        ]
        if inside:
            raise _fail(
                file,
                key,
                f"{folder}: expected a folder of its own (each site build replaces it whole), "
                f"but it holds {', '.join(inside)}",
            )
    if paths.site_private.resolve().is_relative_to(paths.site.resolve()):
        raise _fail(
            file,
            "paths.site_private",
            f"{paths.site_private}: expected a folder outside paths.site ({paths.site}): "
            "the TDs' pages must not be published with the site",
        )
    if paths.site.resolve().is_relative_to(paths.site_private.resolve()):
        raise _fail(
            file,
            "paths.site",
            f"{paths.site}: expected a folder outside paths.site_private ({paths.site_private})",
        )
    if kind == "team" and paths.teams is None:
        raise _fail(file, "paths.teams", "missing: a team event needs a teams.csv path")
    if kind == "individual" and paths.players is None:
        raise _fail(file, "paths.players", "missing: an individual event needs a players.csv path")
    return paths


def _composition(c: _Composition) -> Composition:
    swaps = tuple(AllowedSwap(s.team, *s.boards) for s in c.allowed_swaps)
    names = {"strongest_players": tuple(c.strongest_players), "tournament_directors": tuple(c.tournament_directors)}
    return Composition(**{**dict(c), **names, "allowed_swaps": swaps})


def _stage(file: Path, name: str, s: _Stage) -> Stage:
    seen: set[TimeControl] = set()
    for i, part in enumerate(s.parts):
        key = f"stages.{name}.parts[{i}]"
        if part.time_control in seen:
            raise _fail(
                file,
                f"{key}.time_control",
                f"{part.time_control} appears in two parts: expected one part per time control",
            )
        seen.add(part.time_control)
        if part.draw > part.win:
            raise _fail(file, f"{key}.draw", f"expected at most the win value {part.win:g}, got {part.draw:g}")
    return Stage(
        **{
            **dict(s),
            "name": name,
            "parts": tuple(Part(p.time_control, p.games, p.win, p.draw) for p in s.parts),
            "tiebreaks": tuple(s.tiebreaks),
            "match_points": MatchPoints(**dict(s.match_points)),
            "kashdan": (s.kashdan.win, s.kashdan.draw, s.kashdan.loss),
            "rounds_given": "rounds" in s.model_fields_set,
            "forbidden_pairs": tuple(s.forbidden_pairs),
            "late_entrants": tuple((e.entrant, e.score) for e in s.late_entrants),
        }
    )


def default_prefect_home(database: Path) -> Path:
    """Prefect's home when paths.prefect_home is unset: a ``.prefect`` folder beside the database."""
    return database.parent / ".prefect"


def default_history_since(registration_at: dt.datetime | None, cap: RatingCap) -> dt.datetime:
    """The backfill horizon when the config gives none: far enough back for every audit —
    TEAM-ELIG-4 looks 24 months before registration, TEAM-CAP-2 counts ratings since cap_since."""
    cap_since = dt.datetime(cap.cap_since.year, cap.cap_since.month, cap.cap_since.day, tzinfo=dt.UTC)
    if registration_at is None:
        return cap_since
    two_years = (
        registration_at.replace(year=registration_at.year - 2)
        if not (registration_at.month == 2 and registration_at.day == 29)
        else registration_at.replace(year=registration_at.year - 2, day=28)
    )
    return min(two_years, cap_since)
