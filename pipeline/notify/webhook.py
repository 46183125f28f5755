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

import logging
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests

USER_AGENT = "antichess-td (tournament directors' pipeline)"


class _Redact(logging.Filter):
    """urllib3 logs each request's path at DEBUG (``"POST /api/webhooks/<id>/<token> HTTP/1.1"``):
    a webhook's path is its secret, so while one is being posted, a urllib3 record that names it is
    dropped, whatever level a host application logs at."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()
        self.lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        with self.lock:
            secrets = tuple(self.secrets)
        if not secrets:
            return True
        text = record.getMessage()
        return not any(s in text for s in secrets)


_REDACT = _Redact()
logging.getLogger("urllib3.connectionpool").addFilter(_REDACT)


@dataclass(frozen=True)
class Delivery:
    """How a POST ended: ``ok`` for a 2xx; ``answer`` says it without the URL (``HTTP 204``,
    ``HTTP 500``, ``ReadTimeout``, ``ConnectionError``)."""

    ok: bool
    answer: str


def post_json(url: str, payload: dict[str, Any], timeout_s: float) -> Delivery:
    """POST ``payload`` as JSON to ``url``, once, within ``timeout_s``. Never raises for the
    network's or the service's failures: they come back as an unsuccessful Delivery."""
    secret = urlsplit(url).path or url
    with _REDACT.lock:
        _REDACT.secrets.add(secret)
    try:
        return _post(url, payload, timeout_s)
    finally:
        with _REDACT.lock:
            _REDACT.secrets.discard(secret)


def _post(url: str, payload: dict[str, Any], timeout_s: float) -> Delivery:
    try:
        response = requests.post(
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
