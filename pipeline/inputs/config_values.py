"""The values of ``tournament.toml`` pydantic cannot judge alone (a time's UTC offset, a clock, a
cron line, a time zone, two boards or two entrants), each checked by a small validator that
raises the final message itself, and the field helpers the tables of
:mod:`pipeline.inputs.config_schema` declare their keys with (``whole``, ``number``, ``_doc``):
a type, its limits, the default as written in TOML and its description.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass
from typing import Annotated, Any

from croniter import croniter
from pydantic import Field, PlainValidator
from pydantic_core import PydanticCustomError

from pipeline.domain.timecontrol import parse_time_control
from pipeline.model import (
    TimeControl,
)


@dataclass(frozen=True)
class _Shape:
    """How docs/config.md names a key's type (``kind``) and what its error says it expects
    (``expected``; empty when the key's validator writes its own message)."""

    kind: str
    expected: str = ""


def _reject(expected: str) -> PydanticCustomError:
    """A validator's error whose text is the final message (``{`` and ``}`` are pydantic's placeholders)."""
    return PydanticCustomError("config", expected.replace("{", "{{").replace("}", "}}"))


def _utc_time(v: Any) -> dt.datetime | None:
    """A TOML offset datetime, date, or an ISO-8601 string with an offset → an aware UTC datetime."""
    if v is None:
        return None
    if isinstance(v, str):
        try:
            v = dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
        except ValueError:
            raise _reject(f"expected a UTC time such as 2026-01-06T00:00:00Z, got {v!r}") from None
    if isinstance(v, dt.datetime):
        if v.tzinfo is None:
            raise _reject(f"expected a time with a UTC offset (e.g. 2026-01-06T00:00:00Z), got {v.isoformat()!r}")
        return v.astimezone(dt.UTC)
    if isinstance(v, dt.date):
        return dt.datetime(v.year, v.month, v.day, tzinfo=dt.UTC)
    raise _reject(f"expected a UTC time such as 2026-01-06T00:00:00Z, got {v!r}")


def _date(v: Any) -> dt.date:
    if isinstance(v, str):
        try:
            return dt.date.fromisoformat(v)
        except ValueError:
            pass
    elif isinstance(v, dt.date) and not isinstance(v, dt.datetime):
        return v
    raise _reject(f"expected a date such as 2025-01-01, got {v!r}")


def _time_control(v: Any) -> TimeControl:
    if not isinstance(v, str) or not v.strip():
        raise _reject(f"expected a non-empty string, got {v!r}")
    try:
        return parse_time_control(v)
    except ValueError as e:
        raise _reject(str(e)) from None


_CRON_RANGES = ("minute 0-59", "hour 0-23", "day 1-31", "month 1-12", "weekday 0-6")


def _cron(v: str) -> str:
    """A 5-field cron line as Prefect's scheduler reads it (croniter): ``0 3 * * *``."""
    fields = v.split()
    if len(fields) != 5:
        raise _reject(
            f"expected a cron line of 5 fields (minute hour day month weekday) such as '0 3 * * *', got {v!r}"
        )
    if not croniter.is_valid(v):
        # name the first field that is wrong on its own (every other field '*'), if there is one
        bad = [
            f"{_CRON_RANGES[i].split()[0]} {field!r} is not valid: "
            for i, field in enumerate(fields)
            if not croniter.is_valid(" ".join(field if j == i else "*" for j in range(5)))
        ]
        raise _reject(
            f"{bad[0] if bad else ''}expected a cron line such as '0 3 * * *' ({', '.join(_CRON_RANGES)}), got {v!r}"
        )
    return v


def _maybe_cron(v: str | None) -> str | None:
    return None if v is None else _cron(v)


def _timezone(v: str) -> str:
    try:
        zoneinfo.ZoneInfo(v)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise _reject(f"expected an IANA time zone such as UTC or Europe/Berlin, got {v!r}") from None
    return v


def _two_boards(v: Any) -> tuple[int, int]:
    if (
        not isinstance(v, list)
        or len(v) != 2
        or any(isinstance(b, bool) or not isinstance(b, int) or b < 1 for b in v)
        or v[0] == v[1]
    ):
        raise _reject(f"expected two different board numbers such as [1, 2], got {v!r}")
    return min(v), max(v)


def _two_entrants(v: Any) -> tuple[str, str]:
    if (
        not isinstance(v, list)
        or len(v) != 2
        or any(not isinstance(x, str) or not x.strip() for x in v)
        or v[0].strip().lower() == v[1].strip().lower()
    ):
        raise _reject(f'expected two different entrants such as ["Pawn Stormers", "Knight Riders"], got {v!r}')
    return v[0].strip(), v[1].strip()


Text = Annotated[str, Field(pattern=r"\S")]
UtcTime = Annotated[dt.datetime, PlainValidator(_utc_time), _Shape("UTC time")]
MaybeUtcTime = Annotated[dt.datetime | None, PlainValidator(_utc_time), _Shape("UTC time")]
Date = Annotated[dt.date, PlainValidator(_date), _Shape("date")]
TomlPath = Annotated[str, Field(pattern=r"\S"), _Shape("path", "a path")]  # relative to the file: see _paths
Names = Annotated[list[Text], _Shape("list of Lichess names", "a list of Lichess names")]


def _doc(default: Any, doc: str, **constraints: Any) -> Any:
    """A key: its default as written in TOML (``...``: required) and its description."""
    return Field(default, description=doc, **constraints)


def whole(default: Any, doc: str, minimum: int = 0, maximum: int | None = None) -> Any:
    return Field(default, description=doc, ge=minimum, le=maximum)


def number(default: Any, doc: str, minimum: float = 0) -> Any:
    return Field(default, description=doc, ge=minimum)
