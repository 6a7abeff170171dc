"""The process's watcher of the nights' versions: the part of live push that holds no
request (docs/architecture.md#live-push).

One watcher per process and database reads, every ``PUSH_TICK`` seconds, the nights
changed since it last looked (each change is numbered, ``log.bump``) and the version of
each night its streams began to watch since, and wakes only the streams of a night
whose version moved: a write to one night wakes no screen of another. Its work follows
the changes, not the nights watched (reading the version of each of 200 watched nights
twenty times a second took a tenth of a worker's time). The watcher is
a cache of the database, like the state cache: several worker processes each run their
own, and none needs to agree with another. The streams themselves are
companion/live/streams.py.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from companion import store


@dataclass(eq=False)
class Stream:
    """One open stream: ``woken`` is set when its night changes, or when the stream is
    to end (``ended``: its device opened more than ``per_device`` streams since)."""

    device: str
    address: str = ""
    woken: threading.Event = field(default_factory=threading.Event)
    ended: bool = False


@dataclass
class _Night:
    """What the watcher knows of one watched night: its version and the streams
    waiting for it to change."""

    version: int
    waiting: set[Stream] = field(default_factory=set)


class Watcher:
    """Wakes the streams of a night when its version moves (one per process and
    database; the loop runs only while some stream watches). It also holds the count of
    open streams: at most ``per_device`` for one device and ``per_address`` for one
    client address (opening another ends the oldest: a phone that lost its Wi-Fi and
    came back has a stream the server still thinks open), and ``most`` in all, so that
    no device — nor one address under a thousand made-up device ids — can hold the
    process's streams."""

    def __init__(self, path: str, tick: float, per_device: int = 4, most: int = 4000,
                 per_address: int = 16) -> None:
        self.path, self.tick = path, tick
        self.per_device, self.most, self.per_address = per_device, most, per_address
        self._lock = threading.Lock()
        self._nights: dict[int, _Night] = {}
        self._new: set[int] = set()  # nights first watched since the last look
        self._devices: dict[str, list[Stream]] = {}
        self._addresses: dict[str, list[Stream]] = {}
        self._open = 0
        self._running = False

    def open(self, device: str, address: str = "") -> Stream | None:
        """A new stream for ``device`` at ``address``, ending the oldest beyond
        ``per_device`` and ``per_address``; None when ``most`` streams are open (the
        page polls instead)."""
        with self._lock:
            if self._open >= self.most:
                return None
            for streams, most in ((self._devices.get(device, []), self.per_device),
                                  (self._addresses.get(address, []), self.per_address)):
                while len(streams) >= most:
                    self._end(streams[0])
            stream = Stream(device, address)
            self._devices.setdefault(device, []).append(stream)
            self._addresses.setdefault(address, []).append(stream)
            self._open += 1
            return stream

    def carrying(self) -> int:
        """How many streams the process holds open."""
        return self._open

    def close(self, stream: Stream) -> None:
        """The stream's connection is closed (called again, it does nothing)."""
        with self._lock:
            self._end(stream)

    def _end(self, stream: Stream) -> None:
        """Its place given back, and the stream told to end (under the lock)."""
        streams = self._devices.get(stream.device, [])
        if stream in streams:
            streams.remove(stream)
            self._open -= 1
            if not streams:
                del self._devices[stream.device]
            held = self._addresses[stream.address]
            held.remove(stream)
            if not held:
                del self._addresses[stream.address]
        stream.ended = True
        stream.woken.set()

    def wait(self, stream: Stream, night_id: int, seen: int, timeout: float
             ) -> int | None:
        """The night's version once it is not ``seen`` (at once if it already moved),
        or None after ``timeout`` seconds without a change, or once the stream is
        ended."""
        with self._lock:
            if stream.ended:
                return None
            night = self._nights.get(night_id)
            if night is None:
                night = self._nights[night_id] = _Night(seen)
                self._new.add(night_id)  # its version is read at the next look
            if night.version != seen:
                return night.version
            stream.woken.clear()
            night.waiting.add(stream)
            self._start()
        try:
            stream.woken.wait(timeout)
        finally:
            with self._lock:
                night.waiting.discard(stream)
                if not night.waiting and self._nights.get(night_id) is night:
                    del self._nights[night_id]
        return night.version if night.version != seen and not stream.ended else None

    def _start(self) -> None:
        if not self._running:
            self._running = True
            threading.Thread(target=self._loop, name="companion-push", daemon=True).start()

    def _loop(self) -> None:
        db = store.connect(self.path)
        try:
            seen = store.last_change(db)
            while True:
                time.sleep(self.tick)
                with self._lock:
                    if not self._nights:
                        self._running = False
                        self._new.clear()
                        return
                    new, self._new = list(self._new), set()
                versions, seen = store.changes_since(db, seen)
                if new:  # (a change made before it was watched is not among those)
                    versions.update(store.night_versions(db, new))
                self._notify(versions)
        finally:
            db.close()

    def _notify(self, versions: dict[int, int]) -> None:
        with self._lock:
            for night_id, version in versions.items():
                night = self._nights.get(night_id)
                if night is not None and night.version != version:
                    night.version = version
                    for stream in night.waiting:
                        stream.woken.set()
