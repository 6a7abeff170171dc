"""A small thread-safe LRU: the per-process caches of derived states and shared fragments.

Nothing in it is ever the truth: every entry is keyed by where it sits in the log, so a
worker that misses just computes it again, and several workers never need to agree.
"""

import pickle
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


class Pickled(LRU):
    """An LRU that keeps its values pickled: each ``get`` is a copy of its own, so
    nothing a reader does to one reaches another request, and the garbage collector
    does not walk them (a cache of 2,000 game logs held ~120,000 dicts, and every full
    collection of the worker walked them all while its requests waited)."""

    def get(self, key: Hashable) -> Any:
        blob = super().get(key)
        return None if blob is None else pickle.loads(blob)

    def put(self, key: Hashable, value: Any) -> None:
        super().put(key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
