"""A small thread-safe LRU: the per-process caches of derived states and shared fragments.

Nothing in it is ever the truth: every entry is keyed by where it sits in the log, so a
worker that misses just computes it again, and several workers never need to agree.
"""

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any


class LRU:
    """At most ``size`` entries; the least recently used goes first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable) -> Any:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
