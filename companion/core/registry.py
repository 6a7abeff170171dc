"""The games this app knows, each declared once by its own package.

A game package (``companion/<kind>/``) declares ``GAME = GameDef(...)`` in its ``game.py``
(the module :data:`INSTALLED` names): its kind, title, pure rules module, blueprint, and
the few functions the core asks of it (:class:`GameDef`). The core — the store, the
game pages, the tally, statistics, export and the base template — reads every game
through this module and never names one.

Adding a game is its package, its templates and static files, and one line in
:data:`INSTALLED` (docs/adding-a-game.md lists every place).
An app may be made with another list (``create_app({"GAMES": [...]})``): the test suite
registers a minimal fourth game that way. ``create_app`` keeps its games on the app
(:data:`APP_KEY`); the code that reads them passes them on, so nothing here asks which
app is running.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from random import Random
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from flask import Blueprint

from companion.core.errors import N_, RuleError

#: The game packages of the app, in the order the host's menu lists them.
INSTALLED = ("companion.kraken.game", "companion.skullking.game", "companion.crazytime.game")

State = dict[str, Any]
S = TypeVar("S")  # a game's setup
T = TypeVar("T")  # its state
E = TypeVar("E")  # one event
Event = dict[str, Any]
Seat = dict[str, Any]

#: What a viewer may see of a game (``for_seat``, ``for_screen``): ``{"setup": …, "state":
#: …}``, the game's own with every secret the viewer may not see taken out. A phone's and
#: the room's screen's templates are drawn from these alone, never from the whole game
#: (companion/play/seen.py); a copy shares what it did not change, and nothing changes it.
Shown = dict[str, State]


class Rules(Protocol):
    """A game's pure rules module (``companion/<kind>/rules.py``): no Flask, no SQL."""

    HOST_EVENTS: frozenset[str]
    SEAT_EVENTS: frozenset[str]

    def start(self, players: list[int], options: Any, rng: Any = None) -> State: ...

    def replay(self, setup: State, events: list[Event]) -> State: ...

    # ``replay`` is ``conclude(setup, fold of step over events from begin(setup))``: the
    # import check folds a long log with undos once, instead of replaying every prefix.
    def begin(self, setup: State) -> State: ...

    def step(self, setup: State, state: State, event: Event) -> None: ...

    def conclude(self, setup: State, state: State) -> State: ...

    def describe(self, event: Event) -> tuple[str, dict[str, Any]]: ...


def replayed(setup: S, events: Iterable[E], begin: Callable[[S], T],
             step: Callable[[S, T, E], None], conclude: Callable[[S, T], T]) -> T:
    """The fold every game's ``replay`` is: ``begin``, then ``step`` for each event (which
    raises RuleError for the first one the rules forbid), then ``conclude``. Written once
    here; a game's rules module says ``return replayed(setup, events, begin, step,
    conclude)``."""
    state = begin(setup)
    for event in events:
        step(setup, state, event)
    return conclude(setup, state)


@dataclass(frozen=True)
class Reveal:
    """A synchronised reveal the game asks for (docs/architecture.md, "A synchronised
    reveal"): when its host records ``event``, every screen of the table counts
    ``words`` (``N_``-marked, translated on each screen) to one moment in the laptop's
    time, and shows at the last word what the template marks ``data-reveal-hold``
    (templates/_reveal.html). The lead before that moment is not the game's: it is the
    table's (``REVEAL_LEAD_MS``, companion/live/clock.py)."""

    event: str
    words: tuple[str, ...]
    #: What the table does next until the count's last word, as ``next_step`` says it
    #: (the line drawn for the state after ``event`` would give the flip away: "Ann leads
    #: the first trick" while the count is on "ho"). None: the line is not held back.
    before: Callable[[Any, Any], NextStep | None] | None = None


#: A next step: an ``N_``-marked message and its params. A param that is a list names
#: players, as seat numbers in the order the line says them (shown as their names,
#: joined as the language joins a list); any other param is a number shown as it is.
#: Never a secret: no role, no bid before the reveal, no law's text.
NextStep = tuple[str, dict[str, Any]]


def _same(a: Any, b: Any) -> bool:
    return bool(a == b)


def _nothing(*_args: Any) -> dict[str, Any]:
    return {}


def _no_tally(*_args: Any) -> None:
    return None


def _no_awards(*_args: Any) -> list[dict[str, Any]]:
    return []


def no_standings(setup: State, state: State) -> dict[str, Any] | None:
    """A running game's public standing, for the table page and the tally mid-night
    (docs/rules.md#standings): ``{"progress": (N_ message, params) or None, "label": N_
    message naming the number, "scores": {seat: number}, "highest_wins": bool}``, and
    ``"places"`` {seat: place} when the game's own ranking breaks ties (else the
    competition ranks of ``scores``). ``scores`` may be empty (nothing per player yet,
    or nothing public: a Kraken team). Never a secret: only what every screen shows.
    The default: None, nothing to say."""
    return None


def _any_later_event(later: list[Event], event: Event) -> bool:
    return bool(later)


def _no_next_step(setup: State, state: State) -> NextStep | None:
    return None


def plain_moment(setup: State, state: State) -> str:
    """A game's moment when it names none of its own: "finished" once over, else its
    state's ``phase``, else "play"."""
    if state.get("finished"):
        return "finished"
    return str(state.get("phase") or "play")


class SetupMismatch(RuleError):
    """An imported game's setup is not one its rules make."""

    def __init__(self) -> None:
        super().__init__(N_("A game's setup does not match its rules."))


@dataclass(frozen=True)
class GameDef:
    """A game as its package declares it, and all the core asks of it. The first ten
    fields are required: ``mask`` among them, so no game can be exported without saying
    what its secrets are, and ``for_seat`` and ``for_screen``, so no phone or room's
    screen is drawn from a game's whole state. Every other field has a default, so a game
    names only what it does differently (docs/adding-a-game.md has the table).
    """

    kind: str
    title: Any  # a lazy string: translated when shown
    rules: Rules
    blueprint: Blueprint
    #: Players and options from the game's start form (``<kind>/new.html``).
    parse_new: Callable[[Mapping[str, Any], list[Seat]], tuple[list[int], Any]]
    #: A finished game's ``winners``, ``scores`` {seat: n} and ``places`` {seat: n}, plus
    #: any details its tally shows.
    result: Callable[[State, State], dict[str, Any]]
    #: The options a setup was started with: the default ``restore`` starts the game
    #: again with them and requires the very same setup (a game whose setup holds a
    #: random deal gives ``custom_restore``).
    options: Callable[[State], Any]
    #: A running game's setup and log with every secret taken out (for export).
    mask: Callable[[State, list[Event], State], tuple[State, list[Event]]]
    #: What ``seat``'s phone may see of the game: its setup and state with every secret
    #: taken out but that seat's own (a phone's templates get these alone).
    for_seat: Callable[[State, State, int], Shown]
    #: What the room's screen may see of the game: its setup and state with every secret
    #: taken out (the screen's templates get these alone).
    for_screen: Callable[[State, State], Shown]
    #: The fewest and the most players the game's rules allow (the rules still check;
    #: the table page says why a game cannot start at a night of another size).
    players: tuple[int, int] = (2, 8)
    #: What ``<kind>/new.html`` shows beside the seats, from the night's games so far
    #: (Kraken: the token series that can go on).
    new_view: Callable[[list[Any], list[Seat]], dict[str, Any]] = _nothing
    #: What ``<kind>/_host.html`` shows beside the state (never a secret).
    host_view: Callable[[Any, dict[int, str]], dict[str, Any]] = _nothing
    #: What ``<kind>/_seat.html`` shows on ``seat``'s phone (its own secrets only).
    seat_view: Callable[[Any, dict[int, str], int], dict[str, Any]] = _nothing
    #: What ``<kind>/_tally.html`` shows of tonight's games of this kind (or None), from
    #: ``(games, results, names)``.
    night_tally: Callable[..., dict[str, Any] | None] = _no_tally
    #: Extra per-player figures of one night, from ``(seat, view)``, the view what its
    #: ``night_tally`` gave (None when the kind was not played): numbers, summed across
    #: nights.
    player_night: Callable[..., dict[str, Any]] = _nothing
    #: What one finished play of this kind (``{"seat", "game", "result", "won"}``) adds to
    #: its player's statistics: ``{"sums": {...}, "max": {name: value}}``, numbers summed
    #: and maxima kept across games (companion/core/sums.py).
    stat_parts: Callable[[dict[str, Any]], dict[str, Any]] = _nothing
    #: Extra statistics of one player over their finished games of this kind, from their
    #: parts summed (``{"sums", "max"}``; both empty before a game).
    stat_figures: Callable[[dict[str, Any]], dict[str, Any]] = _nothing
    #: The version of the rules that make this kind's results and statistics: moved with
    #: any change to its scoring, results or statistic parts, so that what was kept of
    #: finished games under the old ones is worked out again.
    rules_version: int = 1
    stat_columns: tuple[tuple[Any, Callable[[dict[str, Any]], Any]], ...] = ()
    #: Tonight's awards of this kind (docs/rules.md#awards) from its **finished** games
    #: in order (the core passes no other), each ``{"id", "title", "text", "params",
    #: "seats"}`` (companion/core/awards.py); none by default.
    awards: Callable[[list[dict[str, Any]], dict[int, str]], list[dict[str, Any]]] = _no_awards
    assets: tuple[str, ...] = ()
    #: Whether ``event``, made from a screen that did not see the ``later`` events, is
    #: stale (the default: any later event makes it stale).
    conflicts: Callable[[list[Event], Event], bool] = _any_later_event
    #: The setup an imported game stands for, checked against the rules (None: the
    #: default ``restore``).
    custom_restore: Callable[[State, list[int], Random], State] | None = field(default=None)
    #: A finished game's part of its BG Stats play, or None: no BG Stats export
    #: (docs/bgstats.md). Called ``bgstats(setup, state, result, gettext)``.
    bgstats: Callable[..., dict[str, Any]] | None = None
    #: A finished game's blocks in the recap picture (companion/core/recap.py), or None:
    #: its winners and scores. Called ``recap(setup, state, result, names, gettext)``.
    recap: Callable[..., list[dict[str, Any]]] | None = None
    #: The sections this kind adds to the night's recap picture from its ``night_tally``
    #: view, or None. Called ``recap_night(view, names, gettext)``.
    recap_night: Callable[..., list[dict[str, Any]]] | None = None
    #: What of a finished game's final state is kept beside its log for the tallies,
    #: statistics, awards, BG Stats and pictures (companion/store/results.py), or None: all
    #: of it. A kind whose finished state still holds something never shown to everyone
    #: takes it out here. Called ``kept_state(setup, state)``.
    kept_state: Callable[[State, State], State] | None = None
    #: What the table does next, in one line, from the game's setup and state, or None:
    #: no line (:data:`NextStep`).
    next_step: Callable[[State, State], NextStep | None] = _no_next_step
    #: The moment of the game a line is drawn for ("play", "leave", "finished"…), from
    #: its setup and state: every line that speaks of the moment carries it in its markup
    #: (data-moment), so that a test sees two lines of one screen disagree
    #: (:func:`plain_moment`).
    moment: Callable[[State, State], str] = plain_moment
    #: A running game's standing as everyone may see it, or None (nothing to say): see
    #: :func:`no_standings`.
    standings: Callable[[State, State], dict[str, Any] | None] = no_standings
    #: What a game not finished adds to its players' statistics so far, or None: nothing
    #: but its count. ``{seat: sums}``, sums of the keys of its ``stat_parts`` that a game
    #: not finished can say (Skull King's bids of the rounds scored, Crazy Time's matches
    #: won): its ``stat_figures`` are then worked out with them too, and the statistics
    #: mark a figure they changed as counting running games. Never a secret: kept beside
    #: the log while the game runs. Called ``running_parts(setup, state)``.
    running_parts: Callable[[State, State], dict[int, dict[str, Any]]] | None = None
    #: The game's synchronised reveal (:class:`Reveal`), or None: it has none.
    reveal: Reveal | None = None
    #: Seconds a finished game's end is held back from every screen after the event that
    #: ended it, for a game whose end makes every secret public (Kraken: every role): the
    #: host sees "Game over — Undo" meanwhile (companion/play/seen.py). 0: none.
    hold_end: int = 0

    def restore(self, setup: State, players: list[int], rng: Random) -> State:
        """The setup an imported game stands for, checked against the rules."""
        if self.custom_restore is not None:
            return self.custom_restore(setup, players, rng)
        fresh: State = self.rules.start(players, self.options(setup))
        if not _same(fresh, setup):
            raise SetupMismatch()
        return fresh


@cache
def load(modules: tuple[str, ...]) -> Mapping[str, GameDef]:
    """The ``GAME`` each module declares, by kind (imported once per process)."""
    games: dict[str, GameDef] = {}
    for name in modules:
        game: GameDef = importlib.import_module(name).GAME
        games[game.kind] = game
    return MappingProxyType(games)


#: The games an app knows, by kind, in its menu's order.
Games = Mapping[str, GameDef]


#: Where ``create_app`` keeps the games of its ``GAMES`` setting (``app.extensions``): one
#: reader (``known_games`` in companion/store/connection.py) gives them to the store and
#: the web layer, which pass them to the pure code that asks.
APP_KEY = "companion.games"


def installed() -> Games:
    """The installed games (:data:`INSTALLED`): the games of code that runs with no app's
    games to hand (a pure tally called on its own, a test, the docs' checks)."""
    return load(INSTALLED)
