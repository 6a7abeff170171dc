"""Crazy Time, as the companion knows it (docs/rules.md#crazy-time).

The table plays the cards; the companion counts the penalty tokens of each match, names
the winners who leave the room, keeps the hours, and — its real value — remembers which
player knows which secret law.

Public rules API: :func:`penalty_tokens`, :func:`match_winners`, :func:`final_ranking`.
The app contract every game follows: :func:`start`, :func:`replay` (one handler per event
type, in :data:`HANDLERS`), :data:`HOST_EVENTS`, :data:`SEAT_EVENTS`, :func:`describe`,
plus :func:`deal`, :func:`hours_for_match`, :func:`law_corner` and :func:`laws_for`.

Events (``{"type", "data", "seat"}``; ``seat`` is the phone that sent it, None = host):

``rabbit``     ``{"seat": s}`` — s holds the rabbit (the youngest). Allowed while the
               current match has no penalty yet; the deal is shown starting from s.
``penalty``    ``{"seat": s, "reason": r?, "law": id?, "law_name": str?}`` — s takes one
               penalty token. ``reason`` is one of :data:`REASONS` (optional); ``law``
               only with ``"broke_law"``: a law made in this game (its id; ``law_name``,
               when given, must be its name, so the history can name it) or one of the
               three laws in force from match 1 (:data:`BASIC_LAWS`,
               docs/rules.md#crazy-time-basic-laws); a break may also be given
               without ``law``.
``law``        ``{"name": str, "when": str, "what": str}`` — the new law (card text or
               card number). The host or a phone of a player at the table may send it.
``learn``      ``{"law": id, "seat": s, "law_name": str?}`` — the table told s the law
               (``law_name`` as for a penalty).
``next_match`` ``{}`` — the winners come back; the next match begins.

Decisions where the rulebook is silent (docs/rules.md#crazy-time-decisions):

* The deal: 63 time cards, ``63 // n`` each; the ``63 % n`` extra cards go one each to
  the players starting with the rabbit, clockwise (the first seat when no rabbit is
  recorded yet). 7 players get 9 each.
* With the harder start, the starting law must be recorded before the first penalty of
  match 1 (a penalty is refused until then), so it cannot be forgotten by accident.
* After match 4 the match still has winners (fewest penalties) for the record, but
  nobody is rewarded and nobody leaves: ``rewarded`` is False and ``hours`` 0.
* After a match whose winners would leave fewer than 2 players, nobody leaves and the
  new law is made by everyone: the law's ``made_by_all`` is True (and the state's
  ``made_by_all`` says so while that law is being made).
* Every law made in the game stays in force until the end (the rulebook never removes
  one), so a penalty may cite any of them.
"""

import random
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, TypeGuard, TypeVar

from companion.core.errors import N_, RuleError
from companion.core.registry import replayed

TIME_CARDS = 63
MATCHES = 4
MIN_PLAYERS = 4
MAX_PLAYERS = 7
SIDES = ("purple", "blue")
BLUE_TOKENS = {1: 6, 2: 8, 3: 10, 4: 12}
PURPLE_TOKENS = 12
REASONS = ("wrong_call", "slowest_slap", "wrong_stop", "tick_tock", "played_on", "broke_law",
           "other")
#: The law cards in the box (docs/rules.md#crazy-time-setup): a law entered by card
#: number names one of them.
WHEN_CARDS = 16
WHAT_CARDS = 18
#: The laws in force from match 1 (docs/rules.md#crazy-time-basic-laws).
BASIC_LAWS = ("reversal", "synchronisation", "overload")
NAME_MAX = 60
CARD_TEXT_MAX = 200

HOST_EVENTS = frozenset({"rabbit", "penalty", "law", "learn", "next_match"})
SEAT_EVENTS = frozenset({"law"})

#: The setup ``start`` returns, the state ``replay`` folds, one event of the log: JSON.
Setup = dict[str, Any]
State = dict[str, Any]
Event = Mapping[str, Any]
#: Applies one event to the state (``replay`` looks them up in :data:`HANDLERS`).
Handler = Callable[[Setup, State, Event], None]
#: A player as the caller names them (a seat, a name...).
Player = TypeVar("Player", bound=Hashable)


def _is_int(value: object) -> TypeGuard[int]:
    """A whole number (a bool is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


# --- The public rules API -----------------------------------------------------------


def penalty_tokens(match: int, side: str = "purple") -> int:
    """Penalty tokens in play in ``match`` (1–4) on board ``side``
    (docs/rules.md#crazy-time-matches).

    A match ends when its tokens are all given out: 12 every match on the purple side;
    6, 8, 10, 12 for matches 1–4 on the blue side.
    """
    if side not in SIDES:
        raise RuleError(N_("The board side must be purple or blue, not %(side)s."), side=side)
    if not _is_int(match) or not 1 <= match <= MATCHES:
        raise RuleError(N_("There is no match %(match)s: the game has matches 1 to 4."),
                        match=match)
    return PURPLE_TOKENS if side == "purple" else BLUE_TOKENS[match]


def match_winners(penalties: Mapping[Player, int]) -> tuple[list[Player], bool]:
    """The winners of one match and whether they are rewarded
    (docs/rules.md#crazy-time-matches).

    ``penalties`` maps each player to their penalties this match. The winners are the
    players with the fewest (ties all win), in the input's order. At least 2 players
    must stay at the table: if the winners' leaving would leave fewer than 2, nobody is
    rewarded and nobody leaves (``rewarded`` is False).
    """
    if not penalties:
        raise RuleError(N_("A match needs players."))
    for player, count in penalties.items():
        if not _is_int(count) or count < 0:
            raise RuleError(N_("%(player)s cannot have %(count)s penalties."),
                            player=player, count=count)
    fewest = min(penalties.values())
    winners = [player for player, count in penalties.items() if count == fewest]
    rewarded = len(penalties) - len(winners) >= 2
    return winners, rewarded


def final_ranking(hours: Mapping[Player, int],
                  penalties: Mapping[Player, int]) -> list[list[Player]]:
    """The final places after match 4 (docs/rules.md#crazy-time-final-score).

    Each player scores the hours won in matches 1–3 (``hours``) minus the penalties taken
    in match 4 (``penalties``). Highest first; a tie goes to fewer match-4 penalties;
    players still tied share the place. Returns the places from first to last, each a
    list of the players who share it (in the input's order).
    """
    if set(hours) != set(penalties):
        raise RuleError(N_("Every player needs both their hours and their match 4 penalties."))
    for player in hours:
        if not _is_int(hours[player]) or hours[player] < 0:
            raise RuleError(N_("%(player)s cannot have %(count)s hours."),
                            player=player, count=hours[player])
        if not _is_int(penalties[player]) or penalties[player] < 0:
            raise RuleError(N_("%(player)s cannot have %(count)s penalties."),
                            player=player, count=penalties[player])

    def key(player: Player) -> tuple[int, int]:
        return (-(hours[player] - penalties[player]), penalties[player])

    places: list[list[Player]] = []
    for player in sorted(hours, key=key):  # sorted() is stable: input order within a tie
        if places and key(places[-1][0]) == key(player):
            places[-1].append(player)
        else:
            places.append([player])
    return places


# --- Helpers the app and the replay share --------------------------------------------


def hours_for_match(match: int) -> int:
    """The hour token a match's winners take: 1h, 2h, 3h after matches 1–3, none after 4
    (docs/rules.md#crazy-time-matches)."""
    if not _is_int(match) or not 1 <= match <= MATCHES:
        raise RuleError(N_("There is no match %(match)s: the game has matches 1 to 4."),
                        match=match)
    return match if match < MATCHES else 0


def law_corner(match: int) -> int | None:
    """The board corner the two cards of a law go under, face down: the one marked with
    the hour of the match just played, "1시간", "2시간" or "3시간" after matches 1–3
    (docs/rules.md#crazy-time-matches), whoever took the hour token, or nobody. The
    starting law of the harder start (``match`` 0) has no corner in the rulebook: None."""
    if not _is_int(match) or not 0 <= match < MATCHES:
        raise RuleError(N_("There is no match %(match)s: the game has matches 1 to 4."),
                        match=match)
    return match or None


def deal(players: Iterable[int], rabbit: int | None = None) -> dict[str, int]:
    """How many time cards each player gets: ``{str(seat): count}``
    (docs/rules.md#crazy-time-matches; the extra cards: docs/rules.md#crazy-time-decisions).

    The 63 time cards are dealt as evenly as possible. Where some get one more (the
    rulebook allows it without saying who), the extra cards go one each to the players
    starting with the rabbit and going clockwise; with no rabbit recorded yet, starting
    with the first seat. The dict lists the seats in that order, the rabbit first.
    """
    players = list(players)
    if not players:
        raise RuleError(N_("A deal needs players."))
    start_at = players.index(rabbit) if rabbit in players else 0
    order = players[start_at:] + players[:start_at]
    each, extra = divmod(TIME_CARDS, len(order))
    return {str(seat): each + (1 if i < extra else 0) for i, seat in enumerate(order)}


# --- Setup ---------------------------------------------------------------------------


def start(players: Iterable[int], options: Mapping[str, Any] | None,
          rng: random.Random | None = None) -> Setup:
    """Validate a new Crazy Time game and return its setup (docs/rules.md#crazy-time).

    ``players``: 4–7 distinct seat numbers in clockwise order. ``options``: ``side``
    (``"purple"``, the default, or ``"blue"``) and ``starting_law`` (bool, default
    False: the optional harder start, one law made by everyone before match 1). An
    unknown option is refused. ``rng`` is accepted for the contract; the companion
    draws nothing at random in this game (the table shuffles the real cards).
    """
    del rng
    players = list(players)
    if not all(_is_int(seat) and seat >= 0 for seat in players):
        raise RuleError(N_("Players are given by their seat numbers."))
    if len(set(players)) != len(players):
        raise RuleError(N_("A player cannot sit twice at the same game."))
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RuleError(N_("Crazy Time is for 4 to 7 players, not %(count)s."),
                        count=len(players))
    options = dict(options or {})
    unknown = sorted(set(options) - {"side", "starting_law"})
    if unknown:
        raise RuleError(N_("Crazy Time has no option %(name)s."), name=unknown[0])
    side = options.get("side", "purple")
    if side not in SIDES:
        raise RuleError(N_("The board side must be purple or blue, not %(side)s."), side=side)
    starting_law = options.get("starting_law", False)
    if not isinstance(starting_law, bool):
        raise RuleError(N_("Starting with a law is a yes or no choice."))
    return {"players": players, "side": side, "starting_law": starting_law}


# --- Replay --------------------------------------------------------------------------


def begin(setup: Setup) -> State:
    """The game before any event: match 1 being played, nobody penalised, no law yet."""
    players = list(setup["players"])
    side = setup["side"]
    return {
        "players": players,
        "side": side,
        "starting_law": bool(setup.get("starting_law", False)),
        "match": 1,
        "phase": "play",
        "rabbit": None,
        "deal": deal(players),
        "tokens_total": penalty_tokens(1, side),
        "tokens_left": penalty_tokens(1, side),
        "penalties": {"1": {str(seat): 0 for seat in players}},
        "match_results": [],
        "hours": {str(seat): 0 for seat in players},
        "out_of_room": [],
        "laws": [],
        "awaiting_starting_law": bool(setup.get("starting_law", False)),
        "law_made": False,
        "made_by_all": None,
        "law_corner": None,
        "standings": None,
        "scores": None,
        "finished": False,
    }


def _seat_in_game(state: State, data: Mapping[str, Any], key: str = "seat") -> int:
    """The seat ``data[key]`` names: a player of this game."""
    seat = data.get(key)
    if not _is_int(seat) or seat not in state["players"]:
        raise RuleError(N_("%(player)s is not in this game."), player=seat)
    return seat


def _refuse_if_finished(state: State) -> None:
    """Nothing is recorded after match 4."""
    if state["finished"]:
        raise RuleError(N_("The game is over."))


def _law_by_id(state: State, law_id: object,
               data: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The law made in this game with id ``law_id``; a ``law_name`` in ``data``, when
    given, must be its name."""
    if _is_int(law_id) and 1 <= law_id <= len(state["laws"]):
        law: dict[str, Any] = state["laws"][law_id - 1]
        if data is not None and "law_name" in data and data["law_name"] != law["name"]:
            raise RuleError(N_("Law %(law)s is not called %(name)s."),
                            law=law_id, name=data["law_name"])
        return law
    raise RuleError(N_("There is no law %(law)s in this game."), law=law_id)


def _data(event: Event) -> dict[str, Any]:
    """An event's data (an empty dict when it has none)."""
    return event.get("data") or {}


def _on_rabbit(setup: Setup, state: State, event: Event) -> None:
    """The youngest player holds the rabbit and starts each match
    (docs/rules.md#crazy-time-matches); recorded or changed until the match's first
    penalty (docs/rules.md#crazy-time-decisions)."""
    data = _data(event)
    _refuse_if_finished(state)
    seat = _seat_in_game(state, data)
    current = state["penalties"][str(state["match"])]
    if state["phase"] != "play" or any(current.values()):
        raise RuleError(N_("The rabbit is given before the first penalty of a match."))
    state["rabbit"] = seat
    state["deal"] = deal(state["players"], seat)


def _on_penalty(setup: Setup, state: State, event: Event) -> None:
    """One penalty token to a player; the last token ends the match
    (docs/rules.md#crazy-time-penalties, docs/rules.md#crazy-time-matches,
    docs/rules.md#crazy-time-final-score). A broken law may be named: a basic law
    (docs/rules.md#crazy-time-basic-laws) or any law made so far
    (docs/rules.md#crazy-time-decisions)."""
    data = _data(event)
    _refuse_if_finished(state)
    match = state["match"]
    if state["phase"] != "play":
        raise RuleError(N_("Match %(match)s is over: no penalty until the next match starts."),
                        match=match)
    if state["awaiting_starting_law"]:
        raise RuleError(N_("Record the starting law before the first penalty."))
    seat = _seat_in_game(state, data)
    if seat in state["out_of_room"]:  # only between matches, kept for safety
        raise RuleError(N_("%(player)s is out of the room."), player=seat)
    reason = data.get("reason")
    if reason is not None and reason not in REASONS:
        raise RuleError(N_("%(reason)s is not a reason for a penalty."), reason=reason)
    if "law" in data and data["law"] is not None:
        if reason != "broke_law":
            raise RuleError(N_("A law is named only for a penalty for breaking it."))
        if data["law"] not in BASIC_LAWS:
            _law_by_id(state, data["law"], data)

    current = state["penalties"][str(match)]
    current[str(seat)] += 1
    state["tokens_left"] -= 1
    if state["tokens_left"] == 0:
        _end_match(state)


def _end_match(state: State) -> None:
    """The match's tokens are all given: name the winners (docs/rules.md#crazy-time-matches);
    after match 4, the final places (docs/rules.md#crazy-time-final-score)."""
    match = state["match"]
    by_seat = {seat: state["penalties"][str(match)][str(seat)] for seat in state["players"]}
    winners, rewarded = match_winners(by_seat)
    if match == MATCHES:
        state["match_results"].append(
            {"match": match, "winners": winners, "rewarded": False, "hours": 0})
        hours = {seat: state["hours"][str(seat)] for seat in state["players"]}
        places = final_ranking(hours, by_seat)
        state["standings"] = places
        state["scores"] = {str(seat): hours[seat] - by_seat[seat] for seat in state["players"]}
        state["phase"] = "finished"
        state["finished"] = True
        return
    gained = hours_for_match(match) if rewarded else 0
    state["match_results"].append(
        {"match": match, "winners": winners, "rewarded": rewarded, "hours": gained})
    if rewarded:
        for seat in winners:
            state["hours"][str(seat)] += gained
        state["out_of_room"] = list(winners)
    state["phase"] = "law"
    state["law_made"] = False
    state["made_by_all"] = not rewarded
    state["law_corner"] = law_corner(match)


def _law_text(data: Mapping[str, Any], key: str, limit: int, message: str) -> str:
    """A law's name or card text, stripped: 1 to ``limit`` characters (a card number is
    taken as its text)."""
    value = data.get(key)
    if _is_int(value):  # a card number
        value = str(value)
    if not isinstance(value, str) or not 1 <= len(value.strip()) <= limit:
        raise RuleError(message, limit=limit)
    return value.strip()


def _card_number(text: str, count: int, message: str) -> str:
    """A law card's text, or its number when it is one: 1 to ``count``, the cards of its
    kind in the box (a 17th When card is a typing slip, not a card)."""
    digits = text.lstrip("#").strip()
    if digits.isdecimal() and not 1 <= int(digits) <= count:
        raise RuleError(message, count=count)
    return text


def _on_law(setup: Setup, state: State, event: Event) -> None:
    """A new law: made by the players at the table (docs/rules.md#crazy-time-matches; the
    optional harder start: one law by everyone before match 1). The host or the phone of a player
    at the table sends it."""
    data = _data(event)
    sender = event.get("seat")
    _refuse_if_finished(state)
    if state["phase"] == "law":
        if state["law_made"]:
            raise RuleError(N_("The law of match %(match)s is already made."),
                            match=state["match"])
        made_in = state["match"]
    elif state["awaiting_starting_law"]:
        made_in = 0
    else:
        raise RuleError(N_("A new law is made after a match, while its winners are out."))
    at_table = [seat for seat in state["players"] if seat not in state["out_of_room"]]
    if sender is not None and sender not in at_table:
        raise RuleError(N_("Only a player at the table may enter the new law."))

    name = _law_text(data, "name", NAME_MAX,
                     N_("A law needs a name of 1 to %(limit)s characters."))
    when = _card_number(_law_text(data, "when", CARD_TEXT_MAX, N_(
        "A law needs its When card (1 to %(limit)s characters).")), WHEN_CARDS, N_(
        "The box has %(count)s When cards: a number from 1 to %(count)s, or the card's "
        "text."))
    what = _card_number(_law_text(data, "what", CARD_TEXT_MAX, N_(
        "A law needs its What card (1 to %(limit)s characters).")), WHAT_CARDS, N_(
        "The box has %(count)s What cards: a number from 1 to %(count)s, or the card's "
        "text."))
    if any(law["name"].casefold() == name.casefold() for law in state["laws"]):
        raise RuleError(N_("There is already a law named %(name)s."), name=name)

    state["laws"].append({
        "id": len(state["laws"]) + 1,
        "name": name,
        "when": when,
        "what": what,
        "known_by": list(at_table),
        "made_by": list(at_table),
        "match": made_in,
        "made_by_all": len(at_table) == len(state["players"]),
    })
    if made_in == 0:
        state["awaiting_starting_law"] = False
    else:
        state["law_made"] = True


def _on_learn(setup: Setup, state: State, event: Event) -> None:
    """The table tells a player a law: from now on they know it
    (docs/rules.md#crazy-time-matches: only players who know a law may look at its
    cards)."""
    data = _data(event)
    _refuse_if_finished(state)
    law = _law_by_id(state, data.get("law"), data)
    seat = _seat_in_game(state, data)
    if seat in law["known_by"]:
        raise RuleError(N_("%(player)s already knows the law %(name)s."),
                        player=seat, name=law["name"])
    law["known_by"] = [s for s in state["players"] if s in law["known_by"] or s == seat]


def _on_next_match(setup: Setup, state: State, event: Event) -> None:
    """The winners come back and the next match begins (docs/rules.md#crazy-time-matches)."""
    _refuse_if_finished(state)
    if state["phase"] != "law":
        raise RuleError(N_("Match %(match)s is still being played."), match=state["match"])
    if not state["law_made"]:
        raise RuleError(N_("Record the new law before the next match."))
    state["match"] += 1
    state["phase"] = "play"
    state["out_of_room"] = []
    state["law_made"] = False
    state["made_by_all"] = None
    state["law_corner"] = None
    state["tokens_total"] = state["tokens_left"] = penalty_tokens(state["match"], state["side"])
    state["penalties"][str(state["match"])] = {str(seat): 0 for seat in state["players"]}
    state["deal"] = deal(state["players"], state["rabbit"])


HANDLERS: dict[str, Handler] = {
    "rabbit": _on_rabbit,
    "penalty": _on_penalty,
    "law": _on_law,
    "learn": _on_learn,
    "next_match": _on_next_match,
}


def replay(setup: Setup, events: Iterable[Event]) -> State:
    """Fold the game's events into its state (docs/rules.md#crazy-time); raise RuleError on
    the first event the rules forbid. Only a law may come from a phone
    (docs/rules.md#event-log).

    The state holds every law's text: a view must show laws through :func:`laws_for`,
    never from ``state["laws"]`` directly.
    """
    return replayed(setup, events, begin, step, conclude)


def step(setup: Setup, state: State, event: Event) -> None:
    """Fold one event into a state from :func:`begin` (``replay``'s loop, one turn);
    RuleError if the rules forbid it."""
    kind = event.get("type")
    if kind not in HANDLERS:
        raise RuleError(N_("Crazy Time has no event %(type)s."), type=kind)
    if event.get("seat") is not None and kind not in SEAT_EVENTS:
        raise RuleError(N_("Only the host device can record this."))
    if not isinstance(event.get("data", {}), dict):
        raise RuleError(N_("This event is not understood."))
    HANDLERS[kind](setup, state, event)


def conclude(setup: Setup, state: State) -> State:
    """The state ``replay`` returns: Crazy Time's handlers keep it whole as they go."""
    return state


# --- What each screen may see ---------------------------------------------------------


def laws_for(state: State, seat: int | None) -> list[dict[str, Any]]:
    """The laws as ``seat``'s phone may show them (docs/rules.md#crazy-time-matches: only
    players who know a law may look at its cards; the winners coming back are told only
    the name).

    A seat that knows a law gets it in full; other laws only as ``id``/``name``/``match``
    (no ``when``/``what`` keys at all). ``seat=None`` is the host screen: names only.
    Once the game is finished every law is revealed to everyone, with who made it.
    """
    shown = []
    for law in state["laws"]:
        public = {"id": law["id"], "name": law["name"], "match": law["match"]}
        if state["finished"]:
            shown.append({**public, "when": law["when"], "what": law["what"],
                          "known": True, "known_by": list(law["known_by"]),
                          "made_by": list(law["made_by"]),
                          "made_by_all": law["made_by_all"]})
        elif seat is not None and seat in law["known_by"]:
            shown.append({**public, "when": law["when"], "what": law["what"],
                          "known": True, "made_by_all": law["made_by_all"]})
        elif seat is not None:
            shown.append({**public, "known": False})
        else:
            shown.append(public)
    return shown


# --- History lines ---------------------------------------------------------------------

_PENALTY_LINES = {
    None: N_("%(player)s took a penalty"),
    "other": N_("%(player)s took a penalty"),
    "wrong_call": N_("%(player)s took a penalty: wrong call"),
    "slowest_slap": N_("%(player)s took a penalty: slowest slap"),
    "wrong_stop": N_("%(player)s took a penalty: wrong “Stop!”"),
    "tick_tock": N_("%(player)s took a penalty: too slow after tick-tock"),
    "played_on": N_("%(player)s took a penalty: the last to play after a mistake"),
    "broke_law": N_("%(player)s took a penalty: broke a law"),
}


_BASIC_LAW_LINES = {
    "reversal": N_("%(player)s took a penalty: broke Reversal"),
    "synchronisation": N_("%(player)s took a penalty: broke Synchronisation"),
    "overload": N_("%(player)s took a penalty: broke Overload"),
}


def describe(event: Event, names: Mapping[Any, str] | None = None,
             law_names: Mapping[Any, str] | None = None) -> tuple[str, dict[str, Any]]:
    """A short history line for ``event``: ``(N_(message), params)``.

    ``names`` (optional) maps seat → the player's name, ``law_names`` law id → law name.
    Without them (the app calls ``describe(event)``) the seat number stands in for the
    player (the app puts the name in its place) and a law is named by the ``law_name``
    its event carries, else by its number. A law's When/What text never appears: a law
    line says only its name.
    """
    names = names or {}
    law_names = law_names or {}
    kind = event.get("type")
    data = event.get("data") or {}

    def who(seat: Any) -> Any:
        return names.get(seat, seat)

    def law_name(law: Any) -> Any:
        known = law_names.get(law) if isinstance(law, int | str) else None
        return known or data.get("law_name") or law

    if kind == "penalty":
        reason = data.get("reason")
        law = data.get("law")
        if reason == "broke_law" and law in BASIC_LAWS:
            return _BASIC_LAW_LINES[law], {"player": who(data.get("seat"))}
        if reason == "broke_law" and law is not None:
            return (N_("%(player)s took a penalty: broke the law %(law)s"),
                    {"player": who(data.get("seat")), "law": law_name(law)})
        return (_PENALTY_LINES.get(reason, _PENALTY_LINES[None]),
                {"player": who(data.get("seat"))})
    if kind == "rabbit":
        return N_("%(player)s holds the rabbit"), {"player": who(data.get("seat"))}
    if kind == "law":
        return N_("A new law: %(name)s"), {"name": str(data.get("name", "")).strip()}
    if kind == "learn":
        law = data.get("law")
        return (N_("%(player)s now knows the law %(law)s"),
                {"player": who(data.get("seat")), "law": law_name(law)})
    if kind == "next_match":
        return N_("The winners come back: the next match begins"), {}
    return N_("%(type)s"), {"type": kind}


def moment(setup: Setup, state: State) -> str:
    """The moment of the game a line is drawn for (companion/core/registry.py):
    "starting-law", "play", after a match "leave" (its winners leave while the rest make
    the law), "law" (nobody left: everyone makes it), "back" (the law is made: the
    winners come back in), and "finished"."""
    if state["finished"]:
        return "finished"
    if state["phase"] == "law":
        if state["law_made"]:
            return "back"
        return "leave" if state["out_of_room"] else "law"
    return "starting-law" if state["awaiting_starting_law"] else "play"


def next_step(setup: Setup, state: State) -> tuple[str, dict[str, Any]]:
    """What the table does next, as (N_(message), params) with players as lists of seats
    (docs/rules.md#crazy-time-matches): the starting law, the rabbit and the deal, the
    tokens left in a match; after one, its winners leave while the rest make the law,
    and come back for the next match; at the end, who won. Never a law's text."""
    match = state["match"]
    if state["finished"]:
        return N_("Game over: %(seats)s won"), {"seats": list(state["standings"][0])}
    if state["phase"] == "law":
        out = list(state["out_of_room"])
        if state["law_made"]:
            if out:
                return N_("Law made: call %(seats)s back and start match %(next)s"), {
                    "seats": out, "next": match + 1}
            return N_("Law made: start match %(next)s"), {"next": match + 1}
        if out:
            return N_("%(seats)s won match %(match)s: leave the room. The rest: make a "
                      "law"), {"seats": out, "match": match}
        return N_("Match %(match)s over: nobody leaves, everyone makes the new law"), {
            "match": match}
    if state["awaiting_starting_law"]:
        return N_("Before match 1: everyone makes the starting law"), {}
    if any(state["penalties"][str(match)].values()):
        return N_("Match %(match)s: %(left)s of %(total)s penalty tokens left"), {
            "match": match, "left": state["tokens_left"], "total": state["tokens_total"]}
    if state["rabbit"] is None:
        return N_("Match %(match)s: give the rabbit to the youngest, then deal the time "
                  "cards"), {"match": match}
    return N_("Match %(match)s: deal the time cards · %(seat)s has the rabbit and "
              "starts"), {"match": match, "seat": [state["rabbit"]]}
