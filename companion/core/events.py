"""A game's events folded: undo and redo are events too, and nothing is ever deleted.

The one place that says what undo and redo mean. Undo takes back the last counting
event; redo puts back the last one undone, until a new event is recorded (which clears
what could be redone). The store's log (companion/store/log.py) and the import check
(companion/core/exchange.py) both fold through :func:`folded`.
"""

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from companion.core.errors import N_, RuleError

UNDO = "undo"
REDO = "redo"
#: What :func:`folded` says of an event that is neither an undo nor a redo.
NEW = "new"

#: One event of a log: ``{"seq", "type", "data", "seat", "created"}``.
Event = dict[str, Any]


def folded(events: Iterable[Event]) -> Iterator[tuple[str, list[Event]]]:
    """Each event's effect, as it comes: ``(UNDO | REDO | NEW, done)``, where ``done``
    is the effective log after it (one list, changed in place as the fold goes on).

    Raises RuleError for an undo with nothing to undo, or a redo with nothing to redo.
    """
    done: list[Event] = []
    undone: list[Event] = []
    for event in events:
        if event["type"] == UNDO:
            if not done:
                raise RuleError(N_("There is nothing to undo."))
            undone.append(done.pop())
            yield UNDO, done
        elif event["type"] == REDO:
            if not undone:
                raise RuleError(N_("There is nothing to redo."))
            done.append(undone.pop())
            yield REDO, done
        else:
            done.append(event)
            undone.clear()
            yield NEW, done


def effective(events: Iterable[Event]) -> list[Event]:
    """The events that count, in order, after undo and redo."""
    last = deque(folded(events), maxlen=1)  # the fold run through, its last step kept
    return list(last[0][1]) if last else []


def undo_redo(events: Iterable[Event]) -> tuple[bool, bool]:
    """(can undo, can redo) for a log: counted, without keeping the events."""
    done, undone = 0, 0
    for event in events:
        if event["type"] == UNDO:
            done, undone = done - 1, undone + 1
        elif event["type"] == REDO:
            done, undone = done + 1, undone - 1
        else:
            done, undone = done + 1, 0
    return done > 0, undone > 0
