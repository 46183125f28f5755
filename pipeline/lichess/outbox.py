"""Messages to Lichess (the notify stage's Lichess channel): a team announcement
(``POST /team/{id}/pm-all``) or an inbox message (``POST /inbox/{username}``), sent once through
a client of :func:`pipeline.lichess.client.make_client` whose policy does not retry errors, and
what Lichess answered (:class:`MessageAnswer`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import berserk
import requests

MessageStatus = Literal["sent", "refused", "limited", "failed", "unknown"]


@dataclass(frozen=True)
class MessageAnswer:
    """What Lichess answered a message: ``sent`` (2xx); ``refused`` (4xx but 429: a missing scope,
    not the team's leader, an unknown player; ``error`` says Lichess's words); ``limited`` (429
    after the wait); ``failed`` (not delivered: no connection, a 5xx); ``unknown`` (the answer was
    lost after the message went out: it may have arrived)."""

    status: MessageStatus
    answer: str  # e.g. "HTTP 200", "HTTP 403: Missing scope: msg:write", "ConnectTimeout"
    http_status: int | None = None


def post_team_message(client: berserk.Client, team_id: str, text: str) -> MessageAnswer:
    """``POST /team/{team_id}/pm-all`` with the form field ``message`` (needs ``team:lead``)."""
    return send_message(client, f"/team/{team_id}/pm-all", {"message": text})


def send_inbox_message(client: berserk.Client, username: str, text: str) -> MessageAnswer:
    """``POST /inbox/{username}`` with the form field ``text`` (needs ``msg:write``)."""
    return send_message(client, f"/inbox/{username}", {"text": text})


def send_message(client: berserk.Client, path: str, form: dict[str, str]) -> MessageAnswer:
    try:
        client.games._r.post(path, data=form, fmt=berserk.formats.JSON)
    except berserk.exceptions.ResponseError as e:
        code = e.status_code
        said = e.cause.get("error") if isinstance(e.cause, dict) else None
        answer = f"HTTP {code}: {said}" if said else f"HTTP {code}"
        if code == 429:
            return MessageAnswer("limited", answer, code)
        if code >= 500:
            return MessageAnswer("failed", answer, code)
        return MessageAnswer("refused", answer, code)
    except berserk.exceptions.ApiError as e:
        cause = e.error
        return MessageAnswer("failed" if never_sent(cause) else "unknown", type(cause).__name__)
    return MessageAnswer("sent", "HTTP 200", 200)


def never_sent(e: BaseException) -> bool:
    """Whether a request that failed with ``e`` surely never reached the server (no connection
    was made), rather than losing its answer."""
    if isinstance(e, requests.ConnectTimeout):
        return True
    return isinstance(e, requests.ConnectionError) and "Failed to establish a new connection" in str(e)
