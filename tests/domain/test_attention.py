"""The attention list's comparison with the previous run's (pipeline/domain/attention_items.py): an item
is new, still open or resolved by its key alone, whatever else about it changed."""

from __future__ import annotations

from pipeline.domain.attention_items import Item, compare


def item(key: str, sentence: str = "s") -> Item:
    return Item(key, "finding_new", "TEAM-ELIG-2", "error", "Alice", sentence, "antichess-td audit")


def test_new_open_and_resolved_by_key() -> None:
    """a stays (its sentence changed: still the same item), b is gone, c appears."""
    before = [item("a"), item("b")]
    now = [item("c"), item("a", "other words")]
    changes = compare(before, now)
    assert [i.key for i in changes.new] == ["c"]
    assert [(i.key, i.sentence) for i in changes.open] == [("a", "other words")]
    assert [i.key for i in changes.resolved] == ["b"]
    assert [changes.status(i) for i in (now[0], now[1], before[1])] == ["new", "open", "resolved"]


def test_the_same_list_twice_has_nothing_new() -> None:
    """A second run with nothing new lists no new item (issue: the TD's week)."""
    now = [item("a"), item("b")]
    changes = compare(now, now)
    assert changes.new == () and changes.resolved == () and len(changes.open) == 2
