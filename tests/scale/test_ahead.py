"""read_ahead: the scan one chunk ahead in a thread of its own gives the same items, errors where they
were, and stops the scan when the measuring stops early."""

import threading

import pytest

from rdbscope.scale.ahead import read_ahead


def counting(n, fail_at=None, closed=None):
    try:
        for i in range(n):
            if i == fail_at:
                raise ValueError(f"bad item {i}")
            yield i, threading.current_thread().name
    finally:
        if closed is not None:
            closed.set()


def test_the_items_come_in_order_from_another_thread():
    items = list(read_ahead(counting(50)))
    assert [i for i, _thread in items] == list(range(50))
    assert {thread for _i, thread in items} == {"rdbscope-read-ahead"}


def test_an_error_comes_where_its_item_would_have():
    got = []
    with pytest.raises(ValueError, match="bad item 7"):
        for i, _thread in read_ahead(counting(50, fail_at=7)):
            got.append(i)
    assert got == list(range(7))


def test_stopping_early_closes_the_source_in_its_thread():
    closed = threading.Event()
    ahead = read_ahead(counting(10_000, closed=closed))
    assert next(ahead)[0] == 0
    ahead.close()
    assert closed.is_set()
    assert not any(t.name == "rdbscope-read-ahead" for t in threading.enumerate())
