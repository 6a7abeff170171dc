"""A small thread-safe LRU: the per-process caches of derived states and shared fragments.

Nothing in it is ever the truth: every entry is keyed by where it sits in the log, so a
worker that misses just computes it again, and several workers never need to agree.
"""

import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class LRU:
    """At most ``size`` entries, and at most ``most_bytes`` of them as ``weigh`` counts
    an entry's bytes (a cache's count alone does not bound its memory: one game of 8,000
    events outweighs a thousand of a table's); the least recently used goes first."""

    def __init__(self, size: int, most_bytes: int | None = None,
                 weigh: Callable[[Any], int] | None = None) -> None:
        self.size, self.most_bytes = size, most_bytes
        self._weigh = weigh or (lambda _value: 0)
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._weights: dict[Hashable, int] = {}
        self.weight = 0  # the entries' bytes, as ``weigh`` counts them
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
        weight = self._weigh(value)
        with self._lock:
            self.weight += weight - self._weights.get(key, 0)
            self._items[key] = value
            self._weights[key] = weight
            self._items.move_to_end(key)
            while len(self._items) > 1 and (
                    len(self._items) > self.size
                    or (self.most_bytes is not None and self.weight > self.most_bytes)):
                oldest, _ = self._items.popitem(last=False)
                self.weight -= self._weights.pop(oldest)

    def pop(self, key: Hashable) -> None:
        """Drop ``key``'s entry, if there is one."""
        with self._lock:
            if self._items.pop(key, None) is not None:
                self.weight -= self._weights.pop(key)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._weights.clear()
            self.weight = 0


class Pickled(LRU):
    """An LRU that keeps its values pickled: each ``get`` is a copy of its own, so
    nothing a reader does to one reaches another request, and the garbage collector
    does not walk them (a cache of 2,000 game logs held ~120,000 dicts, and every full
    collection of the worker walked them all while its requests waited). Its bytes are
    its pickles'."""

    def __init__(self, size: int, most_bytes: int | None = None) -> None:
        super().__init__(size, most_bytes, len)

    def get(self, key: Hashable) -> Any:
        blob = super().get(key)
        return None if blob is None else pickle.loads(blob)

    def put(self, key: Hashable, value: Any) -> None:
        super().put(key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
