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

from dataclasses import dataclass
from typing import Any

from companion import store
from companion.core.registry import Shown
from companion.web import known


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
    reveal = known.game(game.kind).reveal
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
    spec = known.game(game.kind)
    return seen_by(game, spec.for_seat(game.setup, game.state, seat))


def for_screen(game: store.Game) -> Seen:
    """``game`` as the room's screen may see it."""
    spec = known.game(game.kind)
    return seen_by(game, spec.for_screen(game.setup, game.state))
