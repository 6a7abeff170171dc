"""A game as one phone or the room's screen may see it: what a phone's page and the
screen are drawn from, never the whole game (docs/security.md, "Secrets by
construction").

Its setup and state are the ones the game's ``for_seat`` or ``for_screen`` gave
(companion/core/registry.py): every secret the viewer may not see is already out of
them, so no template, shared fragment or game view drawn from a :class:`Seen` can show
one, whatever it reads. It holds no log but the game's reveal when that is its last
event (the moment every screen counts to: companion/live/clock.py, ``reveal_at``), and
nothing that reads the database: a ``store.Game`` would load its log and replay its whole
state for whoever asked.
"""

from __future__ import annotations

import calendar
import time
from dataclasses import dataclass, replace
from typing import Any

from flask import current_app

from companion import store
from companion.core.registry import Shown


@dataclass(frozen=True)
class Seen:
    """A game as one viewer may see it (:func:`seen_by`): where it stands, its setup and
    state as the viewer may see them, and its reveal when that is its last event."""

    id: int
    night_id: int
    number: int
    kind: str
    created: str
    length: int
    last: tuple[str | None, str | None]
    board_version: int | None
    setup: dict[str, Any]
    state: dict[str, Any]
    events: tuple[dict[str, Any], ...]

    @property
    def pos(self) -> int:
        """The log position a form on this view is made from."""
        return self.length

    @property
    def finished(self) -> bool:
        return bool(self.state.get("finished"))

    def plain(self) -> dict[str, Any]:
        """The game as the pure tallies read it, as far as the viewer may see it."""
        return {"number": self.number, "kind": self.kind, "setup": self.setup,
                "state": self.state, "created": self.created, "events": list(self.events)}


def seen_by(game: store.Game, shown: Shown) -> Seen:
    """``game`` as the viewer whose view of it is ``shown`` (the game's ``for_seat`` or
    ``for_screen``) may see it."""
    reveal = store.known_games()[game.kind].reveal
    events: tuple[dict[str, Any], ...] = ()
    if reveal is not None and game.last[1] == reveal.event and game.events:
        last = game.events[-1]
        events = ({"type": last["type"], "seq": last.get("seq"),
                   "data": dict(last.get("data") or {})},)
    return Seen(id=game.id, night_id=game.night_id, number=game.number, kind=game.kind,
                created=game.created, length=game.length, last=game.last,
                board_version=game.board_version, setup=shown["setup"],
                state=shown["state"], events=events)


def for_seat(game: store.Game, seat: int) -> Seen:
    """``game`` as ``seat``'s phone may see it."""
    spec = store.known_games()[game.kind]
    return seen_by(game, spec.for_seat(game.setup, game.state, seat))


def for_screen(game: store.Game) -> Seen:
    """``game`` as the room's screen may see it."""
    spec = store.known_games()[game.kind]
    return seen_by(game, spec.for_screen(game.setup, game.state))


# --- an end held back: "Game over — Undo" -------------------------------------------------


def _when(created: str | None) -> float | None:
    """An event's ``created`` (UTC, whole seconds) as a time stamp, or None."""
    try:
        return float(calendar.timegm(time.strptime(created or "", "%Y-%m-%dT%H:%M:%SZ")))
    except ValueError:
        return None


def held_until(game: store.Game) -> float | None:
    """When the end of ``game`` shows on every screen, while that is ahead: a game whose
    kind holds its end back (``GameDef.hold_end``, Kraken's every role), finished by an
    event of the last few seconds; else None. Until then the host sees "Game over —
    Undo", and the phones and the room's screen the game as it stood before that event."""
    hold = store.known_games()[game.kind].hold_end
    if not hold or not current_app.config["END_HELD"] or not game.finished:
        return None
    ended = _when(game.last[0])
    if ended is None:
        return None
    until = ended + hold + 1  # (its stamp has whole seconds: a second more, not less)
    return until if time.time() < until else None


def before_its_end(game: store.Game) -> store.Game:
    """``game`` as it stood before its last event (the one that ended it): what every
    screen but the host's shows while its end is held."""
    events = game.events
    before = events[-2] if len(events) > 1 else None
    last = (before["created"], before["type"]) if before else (None, None)
    return replace(game, length=game.length - 1, last=last)


def as_shown(game: store.Game) -> store.Game:
    """``game``, or while its end is held, the game before it (:func:`held_until`)."""
    return before_its_end(game) if held_until(game) is not None else game
