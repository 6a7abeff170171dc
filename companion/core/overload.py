"""Overload that slows, not breaks: what a server process decides from how late its own
loop runs (docs/architecture.md, "Overload").

A gevent process serves every request of its connections on one loop, each request to
its end: past what its CPU holds, the requests wait in the loop's queue, and the wait
grows until streams and writes time out at the client. So each process measures how
late its loop wakes a short timer (companion/web/lag.py) and, while that lag is high,
asks the pages for less: a longer wait before they poll or reconnect (a header on every
fragment and 204, the stream's ``retry:``), and, once the lag is past ``SHED_MS``, no new
stream (a quick "busy" that says when to come back) and a live refresh answered at once
"come back in n s" (429) instead of drawn, so the writes (never turned away) go through.

Pure: the measured samples come in, decisions go out; no clock, no gevent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: The loop's lag (smoothed, ms) above which the process is behind, and below which,
#: once behind, it keeps up again. A process held to half a core by a quota is stopped
#: for up to half of each 100 ms period even when it keeps up, so a lag of 50 ms is
#: normal there; a process that cannot keep up queues work and its lag climbs past any
#: bound.
BEHIND_MS = 150.0
CAUGHT_UP_MS = 60.0
#: Past this lag a live refresh is turned away (429, "come back in n s") before any work,
#: and no new stream is opened. Below it both are served: a refresh turned away shows
#: its change seconds later, and a page without its stream polls, which costs more than
#: the stream it was refused (docs/performance.md, "Overload").
SHED_MS = 1000.0
#: How fast the smoothed lag follows the samples: the time constant (s) of its average.
#: It rises faster than it falls, so a page is told to slow down within a few ticks of
#: the queue growing and told it may speed up only once the queue stayed short a while.
RISE_SECONDS = 0.3
FALL_SECONDS = 2.0
#: The most one sample counts for (ms). A process that was stopped (a laptop asleep, a
#: suspended terminal) wakes with one sample as long as its sleep, which was no queue of
#: its own: counted whole, it would refuse streams for many seconds after every wake, just
#: when every page reconnects. A process really behind gives such samples again and again.
SAMPLE_MOST_MS = 2 * SHED_MS
#: The longest and shortest wait a page is told (s): at least a poll's usual period, at
#: most what keeps a table's screens within seconds of each other; a second more for
#: each ``HINT_STEP_MS`` of lag.
HINT_LEAST = 2
HINT_MOST = 5
HINT_STEP_MS = 200.0


@dataclass(frozen=True)
class Lag:
    """A process's loop lag: ``ms`` smoothed, and whether it is ``behind`` (with
    hysteresis: behind above ``BEHIND_MS``, until it falls below ``CAUGHT_UP_MS``)."""

    ms: float = 0.0
    behind: bool = False

    def after(self, sample_ms: float, seconds: float) -> Lag:
        """The lag after one more sample, taken ``seconds`` after the last (at most
        ``SAMPLE_MOST_MS``)."""
        ms = smoothed(self.ms, min(SAMPLE_MOST_MS, max(0.0, sample_ms)), seconds)
        behind = ms > BEHIND_MS or (self.behind and ms > CAUGHT_UP_MS)
        return Lag(ms, behind)


def smoothed(previous: float, sample: float, seconds: float) -> float:
    """An exponential average of the lag, ``seconds`` after its previous value: quick to
    rise (``RISE_SECONDS``), slow to fall (``FALL_SECONDS``)."""
    tau = RISE_SECONDS if sample > previous else FALL_SECONDS
    weight = 1.0 - math.exp(-max(0.0, seconds) / tau)
    return previous + (sample - previous) * weight


def hint_seconds(lag: Lag) -> int:
    """How long a page should wait before it polls or reconnects, in whole seconds: 0 when
    the process keeps up (the page does as it always does), else from ``HINT_LEAST`` to
    ``HINT_MOST``, a second for each ``HINT_STEP_MS`` of lag."""
    if not lag.behind:
        return 0
    return max(HINT_LEAST, min(HINT_MOST, math.ceil(lag.ms / HINT_STEP_MS)))


def admits_stream(lag: Lag) -> bool:
    """Whether a new stream is opened: unless the process is far behind (past
    ``SHED_MS``). Once open a stream costs less than the polls of a page without one, so
    a process only somewhat behind keeps opening them; far behind, each opening is a
    request in a queue that is already too long (a server start brings every page's at
    once), and the page is told to come back later, each at its own moment."""
    return not sheds_refresh(lag)


def sheds_refresh(lag: Lag) -> bool:
    """Whether a live refresh is answered "come back later" (429) rather than drawn: only
    past ``SHED_MS``, where the queue would otherwise grow until answers time out."""
    return lag.behind and lag.ms > SHED_MS


def retry_ms(lag: Lag, draw: float) -> int:
    """The stream's ``retry:`` (ms): how long the browser waits before it reopens a stream
    that ended. 1 s when the process keeps up; else the hint, stretched by ``draw`` (a
    number from 0 to 1, drawn at random for each stream) up to half as long again, so the
    pages told together do not all come back in the same second."""
    hint = hint_seconds(lag)
    if not hint:
        return 1000
    return round(hint * 1000 * (1.0 + 0.5 * min(1.0, max(0.0, draw))))
