"""A bounded cache: the most recently used ``size`` entries, the oldest dropped first.

Every cache of a long-running process (the web server) whose keys come from requests is one of
these, so that no stream of distinct requests grows the process's memory without limit.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class LRU(Generic[V]):
    """At most ``size`` values by key, the least recently used dropped first; thread-safe."""

    def __init__(self, size: int) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"an LRU cache holds at least 1 entry, got size={size!r}")
        self.size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return True
            return False

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value of ``key``, made with ``make()`` (outside the lock) when it is not held."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        self.put(key, value)
        return value

    def put(self, key: Hashable, value: V) -> None:
        """Hold ``value`` under ``key``, dropping the least recently used beyond the size."""
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
