"""Notifications (docs/td-guide.md, Your week): webhooks over real HTTP to a
small receiver on 127.0.0.1, Lichess team announcements and reminders through the replay server
(its scopes and rate limits), once only across reruns (``sent_messages`` in a real DuckDB file),
never failing the run, and never showing a secret. Items are built by hand (they are plain values:
pipeline/domain/attention_items.py); every expected message is written out here."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pipeline.domain import messages
from pipeline.domain.attention_items import Item, PartDue
from pipeline.inputs.config import load_config
from pipeline.model import Config, LichessNotify, Notify, Webhook
from pipeline.sim import replay
from pipeline.stages import notify
from pipeline.store import gateway

SKELETON_DATA = Path(__file__).resolve().parent.parent / "data" / "skeleton" / "lichess"
SECRET_PATH = "/api/webhooks/123/s3cr3t-webhook-token"
TOKEN = "lip_notifytesttoken"
NOW = dt.datetime(2026, 3, 11, 3, tzinfo=dt.UTC)


# --------------------------------------------------------------------------- a webhook receiver


class Receiver(ThreadingHTTPServer):
    """A webhook on 127.0.0.1: keeps each POST's path and JSON body; answers ``statuses`` in turn
    (then 204)."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, Any]] = []
        self.statuses: list[int] = []
        super().__init__(("127.0.0.1", 0), _Hook)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{SECRET_PATH}"


class _Hook(BaseHTTPRequestHandler):
    server: Receiver

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.posts.append((self.path, json.loads(body)))
        status = self.server.statuses.pop(0) if self.server.statuses else 204
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _item(key: str, subject: str = "Alphas", kind: Any = "finding_new", **kw: Any) -> Item:
    fields: dict[str, Any] = {
        "key": key,
        "kind": kind,
        "rule_id": "TEAM-ELIG-2",
        "severity": "error",
        "subject": subject,
        "sentence": "Amir has 812 rated antichess games before registration, 1000 needed",
        "action": "replace Amir in teams.csv",
        "evidence_url": "https://lichess.org/@/Amir",
    }
    fields.update(kw)
    return Item(**fields)


A = _item("finding_new:TEAM-ELIG-2:amir")
B = _item(
    "finding_resolved:TEAM-CAP-1:dee",
    subject="Deltas",
    kind="finding_resolved",
    rule_id="TEAM-CAP-1",
    sentence="Dee is back under the cap",
    action="",
    evidence_url=None,
)
C = _item(
    "ruling_due:swiss:1:Gammas:Deltas",
    subject="Gammas v Deltas",
    kind="ruling_due",
    rule_id="TEAM-SCORE-4",
    sentence="unplayed after its window",
    action="swiss,1,Gammas,forfeit,,<reason>",
    evidence_url=None,
)

LINE_A = (
    "- TEAM-ELIG-2 Alphas: Amir has 812 rated antichess games before registration, 1000 needed "
    "-> replace Amir in teams.csv <https://lichess.org/@/Amir>"
)
LINE_B = "- resolved: TEAM-CAP-1 Deltas: Dee is back under the cap"
LINE_C = "- TEAM-SCORE-4 Gammas v Deltas: unplayed after its window -> swiss,1,Gammas,forfeit,,<reason>"


@pytest.fixture
def cfg(skeleton: Path) -> Config:
    """The skeleton's config with one Discord webhook in $NOTIFY_TEST_HOOK."""
    c = load_config(skeleton)
    return dataclasses.replace(c, notify=Notify(webhooks=(Webhook("NOTIFY_TEST_HOOK", "discord"),)))


def _work(c: Config) -> Path:
    assert c.paths.work_database is not None
    return c.paths.work_database


def _rows(c: Config) -> list[tuple[Any, ...]]:
    con = gateway.connect(_work(c), read_only=True)
    try:
        return con.execute(
            "SELECT channel, subject, status, answer, attempts FROM sent_messages ORDER BY 1, 2"
        ).fetchall()
    finally:
        con.close()


def _everything_stored(c: Config) -> str:
    con = gateway.connect(_work(c), read_only=True)
    try:
        return json.dumps(con.execute("SELECT * FROM sent_messages").fetchall(), default=str)
    finally:
        con.close()


# --------------------------------------------------------------------------- webhooks


def test_a_webhook_gets_the_new_items_once_and_a_rerun_posts_nothing(
    cfg: Config, receiver: Receiver, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("NOTIFY_TEST_HOOK", receiver.url)
    caplog.set_level(logging.DEBUG)
    report = notify.notify_run(cfg, [A, B], _work(cfg), dry_run=False, now=NOW)
    assert receiver.posts == [
        (
            SECRET_PATH,
            {
                "content": f"Skeleton Cup: needs you: 1 new, 1 resolved\n{LINE_A}\n{LINE_B}",
                "allowed_mentions": {"parse": []},
            },
        )
    ]
    assert report.summary_line() == "notify: 1 messages sent (webhook 1)" and report.warnings == []
    assert _rows(cfg) == [
        ("webhook:NOTIFY_TEST_HOOK", f"item:{A.key}", "sent", "HTTP 204", 1),
        ("webhook:NOTIFY_TEST_HOOK", f"item:{B.key}", "sent", "HTTP 204", 1),
    ]

    again = notify.notify_run(cfg, [A, B], _work(cfg), dry_run=False, now=NOW + dt.timedelta(days=1))
    assert len(receiver.posts) == 1 and again.summary_line() == "notify: 0 messages sent"

    notify.notify_run(cfg, [A, B, C], _work(cfg), dry_run=False, now=NOW + dt.timedelta(days=2))
    assert receiver.posts[1:] == [
        (SECRET_PATH, {"content": f"Skeleton Cup: needs you: 1 new\n{LINE_C}", "allowed_mentions": {"parse": []}})
    ]
    # the URL is a secret: not in the database, not in any log line
    assert "s3cr3t" not in _everything_stored(cfg) and "s3cr3t" not in caplog.text


def test_a_receiver_answering_500_costs_one_warning_and_the_items_arrive_next_run(
    cfg: Config, receiver: Receiver, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("NOTIFY_TEST_HOOK", receiver.url)
    receiver.statuses = [500]
    first = notify.notify_run(cfg, [A, B], _work(cfg), dry_run=False, now=NOW)
    assert first.warnings == [
        "notify: webhook $NOTIFY_TEST_HOOK did not take the message (HTTP 500): its 2 items go out with the next run"
    ]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == first.warnings
    assert [r[2:4] for r in _rows(cfg)] == [("failed", "HTTP 500"), ("failed", "HTTP 500")]

    second = notify.notify_run(cfg, [A, B], _work(cfg), dry_run=False, now=NOW + dt.timedelta(days=1))
    assert second.warnings == [] and len(receiver.posts) == 2
    assert receiver.posts[0] == receiver.posts[1]  # the same message, this time taken
    assert [r[2:] for r in _rows(cfg)] == [("sent", "HTTP 204", 2), ("sent", "HTTP 204", 2)]
    assert "s3cr3t" not in _everything_stored(cfg) + caplog.text


def test_a_refused_connection_and_a_missing_variable_warn_without_the_url(
    cfg: Config, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("NOTIFY_TEST_HOOK", raising=False)
    missing = notify.notify_run(cfg, [A], _work(cfg), dry_run=False, now=NOW)
    assert missing.warnings == [
        "notify: $NOTIFY_TEST_HOOK is not set: the webhook's 1 new items wait for a run that has it"
    ]
    with Receiver() as closed:  # bound, then closed: nothing listens on its port
        url = closed.url
    monkeypatch.setenv("NOTIFY_TEST_HOOK", url)
    refused = notify.notify_run(cfg, [A], _work(cfg), dry_run=False, now=NOW)
    assert refused.warnings == [
        "notify: webhook $NOTIFY_TEST_HOOK did not take the message (ConnectionError): its 1 items go out with the next run"
    ]
    assert "s3cr3t" not in caplog.text + _everything_stored(cfg)


def test_a_run_stopped_while_sending_never_sends_that_message_again(
    cfg: Config, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash between the POST and its answer's record leaves 'sending': it may have arrived."""
    monkeypatch.setenv("NOTIFY_TEST_HOOK", receiver.url)
    con = gateway.connect(_work(cfg))
    gateway.upsert(
        con,
        "sent_messages",
        [notify.SentMessage("webhook:NOTIFY_TEST_HOOK", f"item:{A.key}", "item", "x", "sending", None, 1, NOW, NOW)],
    )
    con.close()
    report = notify.notify_run(cfg, [A, C], _work(cfg), dry_run=False, now=NOW)
    assert report.warnings == [
        f"notify: a run stopped while sending item:{A.key} to webhook:NOTIFY_TEST_HOOK: it may have arrived, "
        "so it is not sent again (check it there)"
    ]
    assert [p[1]["content"] for p in receiver.posts] == [f"Skeleton Cup: needs you: 1 new\n{LINE_C}"]
    assert _rows(cfg)[0][2:4] == ("unknown", "a run stopped while sending")


def test_dry_run_prints_the_messages_and_records_nothing(
    cfg: Config, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOTIFY_TEST_HOOK", receiver.url)
    shown = notify.dry_run_messages(cfg, [A], now=NOW)
    assert shown == [f"--- webhook $NOTIFY_TEST_HOOK (discord), message 1/1\nSkeleton Cup: needs you: 1 new\n{LINE_A}"]
    assert receiver.posts == [] and not _work(cfg).exists()


def test_slack_and_json_webhooks_get_their_own_shapes(
    cfg: Config, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOTIFY_SLACK", receiver.url + "/slack")
    monkeypatch.setenv("NOTIFY_JSON", receiver.url + "/json")
    c = dataclasses.replace(
        cfg, notify=Notify(webhooks=(Webhook("NOTIFY_SLACK", "slack"), Webhook("NOTIFY_JSON", "json")))
    )
    notify.notify_run(c, [A], _work(c), dry_run=False, now=NOW)
    assert receiver.posts[0] == (SECRET_PATH + "/slack", {"text": f"Skeleton Cup: needs you: 1 new\n{LINE_A}"})
    assert receiver.posts[1] == (
        SECRET_PATH + "/json",
        {
            "tournament": "skeleton",
            "items": [
                {
                    "key": A.key,
                    "status": "new",
                    "kind": "finding_new",
                    "rule_id": "TEAM-ELIG-2",
                    "severity": "error",
                    "subject": "Alphas",
                    "sentence": A.sentence,
                    "action": A.action,
                    "evidence_url": "https://lichess.org/@/Amir",
                    "stage": None,
                    "round": None,
                    "deadline": None,
                }
            ],
        },
    )


# --------------------------------------------------------------------------- splitting (pure)


def test_a_discord_message_is_split_at_2000_characters() -> None:
    """Title "Cup: needs you: 30 new" (22 characters) leaves 2000 - 22 - 8 (" (99/99)") - 1 (the
    newline) = 1969 for the lines; lines of exactly 100 characters, joined by newlines, fit 19
    (19 * 100 + 18 = 1918; 20 would take 2019): 30 items → 19 + 11, titled (1/2) and (2/2)."""
    prefix = "- TEAM-FMT-3 B: "  # item_line's start for rule TEAM-FMT-3, subject "B", no action or link
    items = [
        Item(f"k{n}", "games_due", "TEAM-FMT-3", "warning", "B", f"{n:02d}".ljust(100 - len(prefix), "x"), "")
        for n in range(30)
    ]
    assert {len(messages.item_line(i)) for i in items} == {100}
    chunks = messages.webhook_chunks("Cup", "discord", items)
    assert [len(c.items) for c in chunks] == [19, 11]
    assert chunks[0].text.split("\n")[0] == "Cup: needs you: 30 new (1/2)"
    assert chunks[1].text.split("\n")[0] == "Cup: needs you: 30 new (2/2)"
    assert len(chunks[0].text) == len("Cup: needs you: 30 new (1/2)") + 1 + 1918 == 1947
    assert [i.key for c in chunks for i in c.items] == [f"k{n}" for n in range(30)]


def test_split_lines_packs_in_order_and_cuts_a_line_too_long_alone() -> None:
    """limit 30, title "T" (1): room 30 - 1 - 8 - 1 = 20. "aaaaaaaaaa" (10) + "\\n" + "bbbbbbbbb" (9)
    = 20 fits; "c" * 25 is cut to 19 characters and "…"; "d" goes with nothing else left."""
    out = messages.split_lines("T", ["a" * 10, "b" * 9, "c" * 25, "d"], 30)
    assert out == [
        ("T (1/3)\n" + "a" * 10 + "\n" + "b" * 9, [0, 1]),
        ("T (2/3)\n" + "c" * 19 + "…", [2]),
        ("T (3/3)\nd", [3]),
    ]
    assert messages.split_lines("T", ["one"], 30) == [("T\none", [0])]


# --------------------------------------------------------------------------- Lichess


def _lichess_cfg(cfg: Config, server: replay.ReplayServer, **notify_kw: Any) -> Config:
    li = LichessNotify(**{"team": "skeleton-league", "announce": ("pairings", "standings"), **notify_kw})
    return dataclasses.replace(
        cfg,
        lichess=dataclasses.replace(cfg.lichess, base_url=server.base_url, replay_data=None, rate_limit_wait_s=0.01),
        notify=Notify(lichess=li),
    )


def _seed_rounds(c: Config) -> None:
    """Two rounds of pairings (windows as the skeleton's) and the standings after round 1."""
    day = dt.timedelta(days=1)
    r1 = dt.datetime(2026, 3, 3, tzinfo=dt.UTC)
    pairings = [
        {"stage": "swiss", "round": r, "entrant_a": a, "entrant_b": b, "window_start": s, "window_end": s + 7 * day}
        for r, a, b, s in [
            (1, "Alphas", "Betas", r1),
            (1, "Gammas", "Deltas", r1),
            (2, "Alphas", "Gammas", r1 + 7 * day),
            (2, "Betas", "Deltas", r1 + 7 * day),
        ]
    ]
    standings = [
        {
            "stage": "swiss",
            "after_round": 1,
            "rank": k,
            "entrant": e,
            "matches_played": 1,
            "match_points": mp,
            "points_scored": ps,
            "points_conceded": 44 - ps,
            "points_difference": 2 * ps - 44,
            "median_buchholz": 0.0,
        }
        for k, e, mp, ps in [(1, "Alphas", 2, 30), (2, "Gammas", 1, 22), (3, "Deltas", 1, 22), (4, "Betas", 0, 14)]
    ]
    con = gateway.connect(_work(c))
    gateway.upsert(con, "td_pairings", pairings)
    gateway.upsert(con, "scored_standings", standings)
    con.close()


ROUND_2 = (
    "Skeleton Cup: swiss round 2\n"
    "Play from Tue 10 Mar 00:00 UTC until Tue 17 Mar 00:00 UTC.\n"
    "\n"
    "Alphas vs Gammas\n"
    "Betas vs Deltas\n"
    "\n"
    "Standings of swiss after round 1:\n"
    "1. Alphas 2 MP, 30 points\n"
    "2. Gammas 1 MP, 22 points\n"
    "3. Deltas 1 MP, 22 points\n"
    "4. Betas 0 MP, 14 points"
)


def _received(server: replay.ReplayServer) -> list[dict[str, Any]]:
    import requests

    return requests.get(server.base_url + "/_replay/messages", timeout=5).json()


def test_a_round_is_announced_to_the_team_once(cfg: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    scopes = {TOKEN: frozenset({"team:lead"})}
    with replay.running(SKELETON_DATA, options=replay.ReplayOptions(token_scopes=scopes)) as server:
        c = _lichess_cfg(cfg, server)
        monkeypatch.setenv(c.lichess.token_env, TOKEN)
        _seed_rounds(c)
        report = notify.notify_run(c, [], _work(c), dry_run=False, now=NOW)
        assert report.summary_line() == "notify: 1 messages sent (announcement 1)" and report.warnings == []
        for night in range(1, 4):  # the nights after: round 2 is not announced again
            notify.notify_run(c, [], _work(c), dry_run=False, now=NOW + dt.timedelta(days=night))
        got = _received(server)
        assert [(m["endpoint"], m["to"], m["text"]) for m in got] == [("pm-all", "skeleton-league", ROUND_2)]
        assert server.requests_by_kind == {"pm_all": 1}
        assert _rows(c) == [("lichess-team:skeleton-league", "announce:swiss:2", "sent", "HTTP 200", 1)]
        assert TOKEN not in _everything_stored(c)


def test_announcements_never_go_beyond_lichess_rate_limit(cfg: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """A team allowed one pm-all (the server's pm_all_per_week=1): the final standings after round 2
    meet HTTP 429, are waited out once (rate_limit_wait_s) and wait for the next run."""
    options = replay.ReplayOptions(pm_all_per_week=1, limit_retry_after_s=0)
    with replay.running(SKELETON_DATA, options=options) as server:
        c = _lichess_cfg(cfg, server)
        monkeypatch.setenv(c.lichess.token_env, TOKEN)
        _seed_rounds(c)
        con = gateway.connect(_work(c))
        gateway.upsert(
            con,
            "scored_standings",
            [
                {
                    "stage": "swiss",
                    "after_round": 2,
                    "rank": 1,
                    "entrant": "Alphas",
                    "matches_played": 2,
                    "match_points": 4,
                    "points_scored": 60,
                    "points_conceded": 28,
                    "points_difference": 32,
                    "median_buchholz": 0.0,
                }
            ],
        )
        con.close()
        notify.notify_run(c, [], _work(c), dry_run=False, now=NOW)
        after = notify.notify_run(c, [], _work(c), dry_run=False, now=dt.datetime(2026, 3, 18, tzinfo=dt.UTC))
        assert after.warnings == [
            "notify: Lichess did not take the announcement of swiss final standings "
            "(HTTP 429: Too many requests. Try again later.); the next run tries again"
        ]
        assert len(_received(server)) == 1 and server.requests_by_kind == {"pm_all": 3}  # 1 + the 429 and its retry
        assert _rows(c)[1][1:4] == ("announce:swiss:final", "limited", "HTTP 429: Too many requests. Try again later.")


def test_a_token_without_the_scope_is_a_clear_warning_not_a_failure(
    cfg: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    scopes = {TOKEN: frozenset()}  # a token for reading public data: no scope ticked
    with replay.running(SKELETON_DATA, options=replay.ReplayOptions(token_scopes=scopes)) as server:
        c = _lichess_cfg(cfg, server, reminders=True, reminder_players="all")
        monkeypatch.setenv(c.lichess.token_env, TOKEN)
        _seed_rounds(c)
        report = notify.notify_run(c, [_due()], _work(c), dry_run=False, now=dt.datetime(2026, 3, 16, 6, tzinfo=dt.UTC))
        assert report.warnings == [
            "notify: Lichess refused the announcement of swiss round 2 (HTTP 403: Missing scope: team:lead): "
            "the token in $LICHESS_TOKEN needs the team:lead scope (docs/token.md); it and 0 more announcements "
            "wait for the next run",
            "notify: Lichess refused the reminder to Alice (HTTP 403: Missing scope: msg:write): the token in "
            "$LICHESS_TOKEN needs the msg:write scope (docs/token.md); it and 1 more reminders wait for the next run",
        ]
        assert _received(server) == [] and report.summary_line() == (
            "notify: 0 messages sent, 3 not sent (warnings above; tried again next run)"
        )
        assert TOKEN not in " ".join(report.warnings) + _everything_stored(c)


def _due() -> Item:
    return Item(
        key="games_due:swiss:2:Alphas:Gammas:1",
        kind="games_due",
        rule_id="TEAM-FMT-3",
        severity="warning",
        subject="Alphas v Gammas, board 1",
        sentence="1 of 4 games played, 1 day left",
        action="",
        stage="swiss",
        round=2,
        deadline=dt.datetime(2026, 3, 17, tzinfo=dt.UTC),
        players=("Alice", "Gus"),
        opponents=("Gus", "Alice"),
        due=(PartDue("0+2", 2), PartDue("2+5", 1)),
    )


def test_reminders_go_to_opted_in_players_once_within_reminder_hours(
    cfg: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    with replay.running(SKELETON_DATA, options=replay.ReplayOptions(inbox_per_minute=5)) as server:
        c = _lichess_cfg(cfg, server, team=None, announce=(), reminders=True, reminder_players=("ALICE",))
        monkeypatch.setenv(c.lichess.token_env, TOKEN)
        early = notify.notify_run(c, [_due()], _work(c), dry_run=False, now=dt.datetime(2026, 3, 15, 23, tzinfo=dt.UTC))
        assert early.summary_line() == "notify: 0 messages sent"  # 25 hours left: not yet
        at = dt.datetime(2026, 3, 16, 6, tzinfo=dt.UTC)  # 18 hours before the window closes
        for night in range(3):
            notify.notify_run(c, [_due()], _work(c), dry_run=False, now=at + dt.timedelta(hours=night))
        assert [(m["endpoint"], m["to"], m["text"]) for m in _received(server)] == [
            (
                "inbox",
                "Alice",
                "Skeleton Cup, swiss round 2: your match against Gus still needs 2 games of 0+2 and 1 game of 2+5. "
                "The window closes Tue 17 Mar 00:00 UTC (in 18 hours). Unplayed games go to the tournament "
                "directors for a ruling.",
            )
        ]  # Gus did not opt in
        assert _rows(c) == [("lichess-inbox:alice", "remind:swiss:2:alice", "sent", "HTTP 200", 1)]


def test_reminders_never_go_beyond_the_inbox_rate_limit(cfg: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    with replay.running(
        SKELETON_DATA, options=replay.ReplayOptions(inbox_per_minute=1, limit_retry_after_s=0)
    ) as server:
        c = _lichess_cfg(cfg, server, team=None, announce=(), reminders=True, reminder_players="all")
        monkeypatch.setenv(c.lichess.token_env, TOKEN)
        report = notify.notify_run(c, [_due()], _work(c), dry_run=False, now=dt.datetime(2026, 3, 16, 6, tzinfo=dt.UTC))
        assert [m["to"] for m in _received(server)] == ["Alice"]
        assert report.warnings == [
            "notify: Lichess did not take the reminder to Gus (HTTP 429: Too many requests. Try again later.); "
            "the next run tries again"
        ]


# --------------------------------------------------------------------------- the config


@pytest.mark.parametrize(
    ("section", "message"),
    [
        (
            '[notify]\nwebhooks = [{ url_env = "https://discord.com/api/webhooks/1/x", format = "discord" }]',
            "tournament.toml key 'notify.webhooks[0].url_env': expected an environment variable name, "
            "got 'https://discord.com/api/webhooks/1/x'",
        ),
        (
            '[notify]\nwebhooks = [{ url_env = "HOOK", format = "teams" }]',
            "tournament.toml key 'notify.webhooks[0].format': expected one of discord, slack, json, got 'teams'",
        ),
        (
            '[notify]\nwebhooks = [{ url_env = "HOOK", format = "slack" }, { url_env = "HOOK", format = "json" }]',
            "tournament.toml key 'notify.webhooks[1].url_env': 'HOOK' appears twice: expected one webhook per variable",
        ),
        (
            '[notify.lichess]\nannounce = ["pairings"]',
            "tournament.toml key 'notify.lichess.team': missing: announcements (notify.lichess.announce) need the "
            "Lichess team id",
        ),
        (
            "[notify.lichess]\nreminders = true",
            "tournament.toml key 'notify.lichess.reminder_players': expected the players who opted in (Lichess names, "
            'or "all"): notify.lichess.reminders is true',
        ),
        (
            '[notify.lichess]\nreminder_players = "everyone"',
            "tournament.toml key 'notify.lichess.reminder_players': expected \"all\" or a list of Lichess names such "
            'as ["alice", "bob"], got \'everyone\'',
        ),
    ],
)
def test_bad_notify_keys_are_named_with_what_was_expected(skeleton: Path, section: str, message: str) -> None:
    from pipeline.errors import InputError

    skeleton.write_text(skeleton.read_text(encoding="utf-8") + "\n" + section + "\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_config(skeleton)
    assert str(e.value) == message


@pytest.mark.slow
def test_nightly_dry_run_shows_the_announcement_and_records_nothing(skeleton: Path) -> None:
    """The nightly body (without Prefect) with a team and both announcements, after the skeleton's
    two rounds: the final standings are due; --dry-run prints them and writes no sent_messages row."""
    from flows.nightly import nightly_without_prefect

    text = skeleton.read_text(encoding="utf-8")
    skeleton.write_text(
        text + '\n[notify.lichess]\nteam = "skeleton-league"\nannounce = ["pairings", "standings"]\n', encoding="utf-8"
    )
    result = nightly_without_prefect(str(skeleton), "2026-03-20T03:00:00Z", "a test", dry_run=True)
    printed = result["notify"]["printed"]
    assert len(printed) == 1
    assert printed[0].startswith(
        "--- Lichess team skeleton-league (pm-all): announce:swiss:final\n"
        "Skeleton Cup: final standings of swiss\n\nStandings of swiss after round 2:\n1. "
    )
    assert result["notify"]["line"] == "notify: dry run: 1 messages shown, none sent"
    c = load_config(skeleton)
    assert _rows(c) == []
