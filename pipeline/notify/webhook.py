"""The webhook adapter: the only module that posts to a webhook (Discord, Slack, or a plain JSON
receiver of the TD's own).

A webhook's URL is a secret (whoever has it can post in the TD's channel): it arrives as an
argument, read from the environment by the caller, and is used only as the address of one POST.
Nothing here logs it, puts it in an answer or an exception, or keeps it: an error is told by its
kind (``ConnectTimeout``, ``HTTP 500``), never by requests' message, which quotes the URL.

One attempt per message and run: a failed delivery is tried again by the next run (the caller
records a message as delivered only after a 2xx), so nothing here retries or sleeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import requests

USER_AGENT = "antichess-td (tournament directors' pipeline)"


@dataclass(frozen=True)
class Delivery:
    """How a POST ended: ``ok`` for a 2xx; ``answer`` says it without the URL (``HTTP 204``,
    ``HTTP 500``, ``ReadTimeout``, ``ConnectionError``)."""

    ok: bool
    answer: str


def post_json(url: str, payload: dict[str, Any], timeout_s: float) -> Delivery:
    """POST ``payload`` as JSON to ``url``, once, within ``timeout_s``. Never raises for the
    network's or the service's failures: they come back as an unsuccessful Delivery."""
    try:
        with requests.Session() as session:
            response = session.post(
                url,
                json=payload,
                timeout=timeout_s,
                headers={"User-Agent": USER_AGENT},
                allow_redirects=False,
            )
            response.close()
    except requests.RequestException as e:
        return Delivery(False, type(e).__name__)
    return Delivery(200 <= response.status_code < 300, f"HTTP {response.status_code}")
