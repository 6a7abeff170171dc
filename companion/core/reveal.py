"""How far ahead of "Yo-ho-ho!" a synchronised reveal sets its moment (its lead).

Every screen of the table must hold the moment before it passes: the laptop tells each
one of the reveal, each asks for it, draws it and counts to the moment
(static/js/clock.js). A phone that draws slowly (a mid-range Android is about four times
slower than a laptop core) needs longer for that than the laptop; a fixed lead either
makes every table wait for the slowest phone there could be, or lets a slow phone get
the moment after it passed. So the lead follows what the night's screens have shown
they need (each measures it on every change: static/js/live.js, companion/store/needs.py),
within bounds: never shorter than a quick table's lead, never so long that the table
waits on a phone that is gone. docs/measurements/2026-12-06/README.md, "Slow phones".
"""

from collections.abc import Iterable

#: The longest lead (ms): no table waits longer for a phone that may be gone.
MOST_MS = 4000
#: The slowest screen's need, stretched: its need is the longest of its latest changes,
#: and a reveal is a round's biggest (every player's card at once), with the count's own
#: drawing and a burst of clock samples on top; on café Wi-Fi, the need alone left a slow
#: phone's reveal late (docs/measurements/2026-12-06/README.md, "Slow phones").
STRETCH = 1.5
#: And beyond it.
MARGIN_MS = 400


def lead_ms(needs: Iterable[int], least_ms: int, most_ms: int = MOST_MS,
            margin_ms: int = MARGIN_MS) -> int:
    """The lead for a night whose screens need ``needs`` (ms each): the slowest one's,
    stretched by STRETCH, and a margin, at least ``least_ms`` (the app's
    ``REVEAL_LEAD_MS``: the lead of a table whose screens keep up, and of one where none
    has said) and at most ``most_ms``, unless ``least_ms`` is longer still (a test's
    long count)."""
    slowest = max(needs, default=None)
    wanted = least_ms if slowest is None else round(slowest * STRETCH) + margin_ms
    return max(least_ms, min(most_ms, wanted))


#: A device's need is written again only once it moved by this much (ms): a lead moves
#: by its stretch of it, and less than this moves no reveal a table would notice.
MOVED_MS = 250
#: And at most this often (s) for one device: a page reports a need only when it moved,
#: but anyone may send the header with every request, and each write is a synced commit.
NOTE_EVERY_S = 30

#: What a process keeps of a device's need: the need last written, when (a monotonic
#: clock's seconds), and the need waiting for its turn to be written (or None).
Noted = tuple[int, float, "int | None"]


def noted(kept: Noted | None, need: int | None, now: float) -> tuple[Noted | None, int | None]:
    """What to keep of a device's need after a request, and the need to write now (or
    None), from what was kept (None: nothing yet), the need the request reported (None:
    it reported none) and the time. A first need is written at once; a later one only
    when it moved by :data:`MOVED_MS` from the need written, and no sooner than
    :data:`NOTE_EVERY_S` after it: until then it waits, and a later request of the device
    (any) writes it once its turn has come."""
    if kept is None:
        return (None, None) if need is None else ((need, now, None), need)
    written, at, waiting = kept
    if need is not None:
        waiting = need if abs(need - written) >= MOVED_MS else None
    if waiting is None:
        return (written, at, None), None
    if now - at < NOTE_EVERY_S:
        return (written, at, waiting), None
    return (waiting, now, None), waiting
