"""Where each page is: file names from ids (:func:`slug`) and the links the pages print."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from typing import Any

CALENDAR = "calendar.ics"  # the event's calendar; each entrant's is calendars/<entrant>.ics


def slug(name: str) -> str:
    """A file name for `name`: lower-case letters, digits and dashes; a name that needed changing
    gets a short hash of itself, so two names never share a file."""
    s = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return s if s == name else f"{s or 'x'}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


class Links:
    """Each entrant's, player's, round's, match's and table's page, relative to the site's root
    (templates prefix them with `root`), and a name with its link."""

    def __init__(self, team_event: bool, entrant_names: dict[str, str], player_names: dict[str, str]) -> None:
        self.team_event = team_event
        self.entrant_names = entrant_names
        self.player_names = player_names

    def entrant_href(self, entrant_id: str) -> str:
        if self.team_event:
            return f"teams/{slug(entrant_id)}.html"
        return f"players/{slug(entrant_id)}.html"

    def player_href(self, user_id: str) -> str:
        return f"players/{slug(user_id)}.html"

    def entrant(self, entrant_id: str | None) -> dict[str, str] | None:
        if entrant_id is None:
            return None
        return {"name": self.entrant_names.get(entrant_id, entrant_id), "href": self.entrant_href(entrant_id)}

    def player(self, user_id: str | None, name: str | None = None) -> dict[str, str] | None:
        if user_id is None:
            return None
        return {"name": name or self.player_names.get(user_id, user_id), "href": self.player_href(user_id)}

    def round_href(self, stage: str, rnd: int) -> str:
        return f"rounds/{slug(stage)}-{rnd}.html"

    def match_href(self, stage: str, rnd: int, team_a_id: str) -> str:
        return f"matches/{slug(stage)}-{rnd}-{slug(team_a_id)}.html"

    def standings_href(self, stage: str, rnd: int) -> str:
        return f"standings/{slug(stage)}-{rnd}.html"

    @staticmethod
    def pager(href: Callable[[str, int], str], stage: str, rounds: Iterable[int], current: int) -> list[dict[str, Any]]:
        """A page's links to the same page of each round (``href(stage, r)``), the current one marked."""
        return [{"label": str(r), "href": href(stage, r), "current": r == current} for r in rounds]

    def calendar_href(self, entrant_id: str) -> str:
        return f"calendars/{slug(entrant_id)}.ics"
