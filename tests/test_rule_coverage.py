"""Every scoring, format and tiebreak rule ID (the rules page, docs/rules.md) is named
by at least one test, so a rule cannot silently lose its test."""

from __future__ import annotations

from pathlib import Path

SCORING_RULES = [
    "TEAM-FMT-3",
    "TEAM-SCORE-1",
    "TEAM-SCORE-2",
    "TEAM-SCORE-3",
    "TEAM-SCORE-4",
    "TEAM-SCORE-5",
    "TEAM-KO-1",
    "TEAM-DQ-1",
    "ARM-1",
    "ACWC-FMT-1",
    "ACWC-Q-2",
    "ACWC-C-1",
    "ACWC-SF-1",
    "ACWC-F-1",
    "ACWC-DQ-1",
    "TEAM-TB-1",
    "TEAM-FMT-1",
    "TEAM-COMP-5",
    "TEAM-COMP-6",
    "ACWC-Q-1",
    "ACWC-Q-3",
    "ACWC-C-2",
]


def test_every_scoring_rule_has_a_test() -> None:
    here = Path(__file__).resolve().parent
    text = "\n".join(p.read_text(encoding="utf-8") for p in here.rglob("test_*.py") if p.name != Path(__file__).name)
    assert [r for r in SCORING_RULES if r not in text] == []
