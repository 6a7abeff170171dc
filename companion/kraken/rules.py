"""No Touch Kraken as the companion knows it: docs/rules.md#kraken, as pure functions.

The real deck is on the table; this module only knows what the table tells it (who
revealed whose card, and what it was) and what the rules say follows from that.

Public rules API:

- ``setup(players, *, specials=False, curse=False)``: the deck and role cards for a count.
- ``verdict(...)`` / ``outcome(...)``: who has won after a sequence of revealed cards. It
  and ``replay`` judge each card with the one copy of the end rules (``_end_of``).

App contract (what every game module provides): ``start``, ``replay`` (one handler per
event type, in ``HANDLERS``), ``HOST_EVENTS``, ``SEAT_EVENTS``, ``describe``; and the token
series: ``series_tokens``.

State shape returned by ``replay`` (all JSON):

    players            [seat, ...] in clockwise order
    options            {"curse", "specials", "clockwise", "series"}
    round              1-4 (when finished: the round of the final reveal)
    action             k, 1-based, of the next action in this round (when finished: of the
                       final reveal)
    actions_per_round  N = number of players
    marker             seat holding the action marker, or None before it is placed
    first_marker       seat that took the action marker first (the start player), or None
    cards_in_front     {str(seat): face-down cards in front of that player now}
    revealed           {kind: count} for each card kind in play
    hidden             {kind: count still face-down} for each kind whose count is exact;
                       with the Curse, "treasure" and "curse" give way to "treasure_pile"
                       (Treasures and Curses together: the split is unknown to the table)
    hidden_range       {kind: [least, most]} still face-down, for every kind in play
    special_revealed   [special name, ...] in the order revealed
    treasure_pile      Treasures (and Curses) in the game: the player count, unless a
                       Special card put one more in or took one out
    treasures_to_find  treasure-pile cards still to reveal for the Explorers to win
    in_game            {"treasure", "empty"}: how many of each the game holds (the box
                       holds BOX of each; a Special card may change them)
    shown              [{"seat", "to"}, ...]: whose role a Special card showed to whom
                       (seats only; the role is shown on the viewer's phone alone)
    round_over_deal    None, or the cards each the box deals now that a round has just
                       ended (4, 3, 2)
    deal               None, or (a round just ended) the real deal of the face-down cards
                       left: {"cards": how many, "shares": [{"cards", "seats"}, ...]}, most
                       first, the seats in the order they are dealt to (one share when the
                       cards split evenly, two when a Special card changed their number)
    outcome            "explorers" | "skeletons" | "nobody" | None
    reason             None | "all_treasure" | "kraken" | "curse_first" | "rounds_over"
                       (the cause; outcome "nobody" says the winning team had no player)
    winners, losers    [seat, ...] (both empty while the game goes on)
    finished           bool
    roles              None while running; {str(seat): role} once finished
    unused_roles       None while running; [role, ...] once finished
    reveals            [{"seat", "card", "special", "round", "action", "out_of_turn"}, ...]
                       (a card revealed out of turn keeps the round and the number of
                       the action it followed)
"""

import random
import secrets
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, TypedDict

from companion.core.errors import N_, RuleError
from companion.core.registry import replayed

MIN_PLAYERS = 3
MAX_PLAYERS = 8
ROUNDS = 4
CARDS_PER_ROUND = (5, 4, 3, 2)
TOKENS_TO_END_SERIES = 3

ROLE_NAMES = ("explorer", "skeleton")
CARD_KINDS = ("empty", "treasure", "kraken", "curse", "special")
SPECIAL_NAMES = (
    "lost_treasure",
    "skeletons_grasp",
    "revealed_identity",
    "krakens_presence",
    "light_in_the_deep",
    "captains_obsession",
)

ROLE_LABELS = {"explorer": N_("Explorer"), "skeleton": N_("Skeleton")}
TEAM_LABELS = {"explorers": N_("Explorers"), "skeletons": N_("Skeletons")}
CARD_LABELS = {
    "empty": N_("Empty box"),
    "treasure": N_("Treasure"),
    "kraken": N_("Kraken"),
    "curse": N_("Greedy Captain's Curse"),
    "special": N_("Special card"),
}
SPECIAL_LABELS = {
    "lost_treasure": N_("Lost Treasure"),
    "skeletons_grasp": N_("Skeleton's Grasp"),
    "revealed_identity": N_("Revealed Identity"),
    "krakens_presence": N_("Kraken's Presence"),
    "light_in_the_deep": N_("Light in the Deep"),
    "captains_obsession": N_("Captain's Obsession"),
}

# docs/rules.md#kraken-components: what is in the box.
BOX = {"explorer": 6, "skeleton": 3, "empty": 31, "treasure": 8, "kraken": 1,
       "curse": 3, "special": 6}
# docs/rules.md#kraken-setup: (Explorer cards, Skeleton cards) shuffled for the deal.
ROLE_CARDS = {3: (3, 2), 4: (3, 2), 5: (4, 2), 6: (4, 2), 7: (5, 3), 8: (6, 3)}
# docs/rules.md#kraken-specials: 5 of the 6 Special cards go into the deck.
SPECIALS_IN_DECK = 5

HOST_EVENTS = frozenset({"marker", "reveal", "special_marker", "special_reveal",
                         "special_role", "special_count", "note"})
SEAT_EVENTS: frozenset[str] = frozenset()

#: The setup ``start`` returns, the state ``replay`` folds, one event of the log: JSON.
Setup = dict[str, Any]
State = dict[str, Any]
Event = Mapping[str, Any]
#: Applies one event to the state (``replay`` looks them up in :data:`HANDLERS`).
Handler = Callable[[Setup, State, Event], None]

OPTION_NAMES = ("curse", "specials", "clockwise", "series")
SERIES_ID_MAX = 100


def _count(players: object) -> int:
    """The player count, 3 to 8 (docs/rules.md#kraken: 3 to 8 players)."""
    if isinstance(players, bool) or not isinstance(players, int):
        raise RuleError(N_("The number of players must be a whole number."))
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise RuleError(N_("No Touch Kraken is for 3 to 8 players, not %(count)s."),
                        count=players)
    return players


def setup(players: int, *, specials: bool = False, curse: bool = False) -> dict[str, int]:
    """The role cards and exploration deck for ``players`` (docs/rules.md#kraken-setup).

    Keys: ``explorers``, ``skeletons`` (role cards shuffled for the deal),
    ``unused_roles`` (how many of those are set aside unseen), ``empty``, ``treasure``,
    ``kraken``, ``treasure_pile`` (always = players), ``cards_each`` (5, for round 1),
    ``total`` (exploration cards in the deck, = 5 × players); ``special`` (5) when
    ``specials``: they replace 5 Empty cards (docs/rules.md#kraken-specials).

    With ``curse`` (Expansion 1) the treasure pile of ``players`` cards is 2 Treasure +
    1 Curse plus random Treasures/Curses, so the exact split is unknown: ``treasure`` and
    ``curse`` are then the most the deck can hold, ``treasure_min`` and ``curse_min`` the
    least (6 players: 3-5 Treasures, 1-3 Curses, as docs/rules.md#kraken-curse says).
    """
    n = _count(players)
    explorers, skeletons = ROLE_CARDS[n]
    deck = {
        "explorers": explorers,
        "skeletons": skeletons,
        "unused_roles": explorers + skeletons - n,
        "empty": CARDS_PER_ROUND[0] * n - n - 1,
        "treasure": n,
        "kraken": 1,
        "treasure_pile": n,
        "cards_each": CARDS_PER_ROUND[0],
        "total": CARDS_PER_ROUND[0] * n,
    }
    if specials:
        deck["special"] = SPECIALS_IN_DECK
        deck["empty"] -= SPECIALS_IN_DECK
    if curse:
        # 2 Treasure + 1 Curse, then random ones from the other 6 Treasures and 2 Curses.
        deck["treasure"] = min(BOX["treasure"], n - 1)
        deck["curse"] = min(BOX["curse"], n - 2)
        deck["treasure_min"] = max(2, n - deck["curse"])
        deck["curse_min"] = max(1, n - deck["treasure"])
    return deck


def kinds_in_play(*, curse: bool = False, specials: bool = False) -> list[str]:
    """The exploration card kinds in this game, in CARD_KINDS order."""
    optional = {"curse": curse, "special": specials}
    return [kind for kind in CARD_KINDS if optional.get(kind, True)]


def explorer_range(players: int) -> tuple[int, int]:
    """(least, most) Explorers a table of ``players`` can have after the role deal."""
    n = _count(players)
    explorers, skeletons = ROLE_CARDS[n]
    return max(0, n - skeletons), min(n, explorers)


_TOO_MANY = {
    "empty": N_("The deck holds only %(limit)s Empty boxes at this table."),
    "treasure": N_("The deck holds at most %(limit)s Treasures at this table."),
    "kraken": N_("The deck holds only one Kraken."),
    "curse": N_("The deck holds at most %(limit)s Greedy Captain's Curses at this table."),
    "special": N_("The deck holds only %(limit)s Special cards."),
}


def _end_of(n: int, pile: int, counts: Mapping[str, int], card: str | None, actions: int,
            curse: bool) -> tuple[str | None, str | None]:
    """docs/rules.md#kraken-end (and the Curse's rules, docs/rules.md#kraken-curse).

    ``pile`` is the treasure pile (the player count, unless a Special card changed it:
    docs/rules.md#kraken-specials); ``actions`` the actions made so far, this one
    included; ``card`` None when no card was revealed (a count was corrected). Returns
    (winning team, reason) or (None, None). The order of the checks
    (docs/rules.md#kraken-decisions) matters only for the last reveal of round 4: finding
    the last Treasure there is still an Explorer win.
    """
    if card == "kraken":
        return "skeletons", "kraken"
    if card == "curse" and counts["treasure"] == 0:
        return "skeletons", "curse_first"
    found = counts["treasure"] + (counts["curse"] if curse else 0)
    if found >= pile:
        return "explorers", "all_treasure"
    if actions == ROUNDS * n:
        return "skeletons", "rounds_over"
    return None, None


def _result(n: int, team: str | None, explorers: int | None) -> str | None:
    """The outcome for the team the rules make win: "nobody" when that team has no
    player at the table (docs/rules.md#kraken-end)."""
    if explorers is not None and team is not None:
        members = explorers if team == "explorers" else n - explorers
        if members == 0:
            return "nobody"
    return team


class Verdict(TypedDict):
    """What :func:`verdict` returns."""

    outcome: str | None
    team: str | None
    reason: str | None
    revealed: dict[str, int]


def verdict(players: int, reveals: Iterable[str], *, explorers: int | None = None,
            curse: bool = False, specials: bool = False) -> Verdict:
    """Judge a sequence of revealed cards (docs/rules.md#kraken-end, and the expansions:
    docs/rules.md#kraken-curse, docs/rules.md#kraken-specials).

    Returns ``{"outcome", "team", "reason", "revealed"}``: ``team`` is the team the rules
    make win ("explorers"/"skeletons"), ``outcome`` the same unless that team has no
    player at the table (``explorers`` = 0 or = players), in which case it is "nobody":
    everybody loses (the 3-player all-Explorers Kraken rule, generalised as
    docs/rules.md#kraken-end says; "Nobody wins" in docs/rules.md#kraken-decisions).
    ``reason`` is "all_treasure", "kraken", "curse_first" or "rounds_over". All three
    are None while the game goes on. ``revealed`` counts each kind in play.

    Raises RuleError (a ValueError) for an impossible sequence: a reveal after the end,
    a card not in play, more of a kind than the deck holds.
    """
    n = _count(players)
    deck = setup(n, specials=specials, curse=curse)
    if explorers is not None:
        _check_explorers(n, explorers)
    counts = dict.fromkeys(kinds_in_play(curse=curse, specials=specials), 0)
    team: str | None = None
    reason: str | None = None
    for index, card in enumerate(reveals):
        if team is not None:
            raise RuleError(N_("The game is already over: no more cards are revealed."))
        _count_card(deck, counts, card)
        team, reason = _end_of(n, n, counts, card, index + 1, curse)
    return {"outcome": _result(n, team, explorers), "team": team, "reason": reason,
            "revealed": counts}


def _check_explorers(n: int, explorers: object) -> None:
    """A table of ``n`` has as many Explorers as the role deal can give it."""
    low, high = explorer_range(n)
    if isinstance(explorers, bool) or not isinstance(explorers, int) \
            or not low <= explorers <= high:
        raise RuleError(
            N_("A table of %(players)s has %(low)s to %(high)s Explorers, not %(count)s."),
            players=n, low=low, high=high, count=explorers)


def _count_card(deck: Mapping[str, int], counts: dict[str, int], card: str) -> None:
    """Count one revealed ``card`` in ``counts``: a kind in play, no more of it than the
    ``deck`` holds."""
    if card not in CARD_KINDS:
        raise RuleError(N_("There is no such exploration card: %(card)s."), card=card)
    if card not in counts:
        if card == "curse":
            raise RuleError(N_("The Greedy Captain's Curse is not in this game."))
        raise RuleError(N_("The Special cards are not in this game."))
    counts[card] += 1
    if counts[card] > deck[card]:
        raise RuleError(_TOO_MANY[card], limit=deck[card])


def outcome(players: int, reveals: Iterable[str], *, explorers: int | None = None,
            curse: bool = False, specials: bool = False) -> str | None:
    """Who has won after ``reveals`` (docs/rules.md#kraken-end): "explorers", "skeletons",
    "nobody", or None while the game goes on. See ``verdict`` for the rules and the
    errors."""
    return verdict(players, reveals, explorers=explorers, curse=curse,
                   specials=specials)["outcome"]


def _hidden(deck: Mapping[str, int], counts: Mapping[str, int],
            curse: bool) -> tuple[dict[str, int], dict[str, list[int]]]:
    """Still face-down counts: exact ones, and [least, most] for every kind in play."""
    pile = deck["treasure_pile"]
    hidden: dict[str, int] = {}
    ranges: dict[str, list[int]] = {}
    for kind, seen in counts.items():
        if curse and kind in ("treasure", "curse"):
            continue
        hidden[kind] = deck[kind] - seen
        ranges[kind] = [hidden[kind], hidden[kind]]
    if curse:
        t, c = counts["treasure"], counts["curse"]
        # Treasures in the pile T: at least the deck's least and those seen, and at most
        # the deck's most while leaving room for the Curses seen (at least one).
        least = max(deck["treasure_min"], t)
        most = min(deck["treasure"], pile - max(deck["curse_min"], c))
        hidden["treasure_pile"] = pile - t - c
        ranges["treasure"] = [least - t, most - t]
        ranges["curse"] = [pile - most - c, pile - least - c]
    return hidden, ranges


# --- the app: start, replay, describe -----------------------------------------------


def _check_seats(players: object) -> list[int]:
    """The seats as a sorted list: distinct seat numbers, 3 to 8 of them."""
    if not isinstance(players, list | tuple):
        raise RuleError(N_("The players must be a list of seats."))
    for seat in players:
        if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
            raise RuleError(N_("A seat must be a seat number."))
    if len(set(players)) != len(players):
        raise RuleError(N_("Each seat can play only once in a game."))
    _count(len(players))
    return sorted(players)


def _check_options(options: Mapping[str, Any] | None, n: int) -> dict[str, Any]:
    """The options, each checked and given its default: "curse", "specials", "clockwise"
    (8 players only, docs/rules.md#kraken-play) as bools, "series" an id or None."""
    options = dict(options or {})
    for key in options:
        if key not in OPTION_NAMES:
            raise RuleError(N_("There is no option called %(option)s."), option=key)
    checked: dict[str, Any] = {}
    for key in ("curse", "specials", "clockwise"):
        value = options.get(key, False)
        if not isinstance(value, bool):
            raise RuleError(N_("The option %(option)s is either on or off."), option=key)
        checked[key] = value
    if checked["clockwise"] and n != MAX_PLAYERS:
        raise RuleError(N_("Everyone acting once, clockwise, is a rule for 8 players only."))
    series = options.get("series")
    if series is not None and (not isinstance(series, str) or not series
                               or len(series) > SERIES_ID_MAX):
        raise RuleError(N_("That is not a token series."))
    checked["series"] = series
    return checked


def start(players: Sequence[int], options: Mapping[str, Any] | None,
          rng: random.Random | None = None) -> Setup:
    """Set up a game (docs/rules.md#kraken-setup): check the options and deal the roles.

    ``players`` is the list of seat numbers (3 to 8). ``options`` may hold "curse"
    (Expansion 1), "specials" (Expansion 2), "clockwise" (the 8-player "everyone acts
    once, clockwise" rule; refused at other counts) and "series" (a token series id, or
    None). The role cards for the count are shuffled with ``rng`` (default: the
    cryptographic ``secrets.SystemRandom()``), one is dealt to each seat in seat order,
    and the rest are set aside unseen ("unused_roles").
    """
    seats = _check_seats(players)
    checked = _check_options(options, len(seats))
    deck = setup(len(seats), specials=checked["specials"], curse=checked["curse"])
    rng = rng if rng is not None else secrets.SystemRandom()
    cards = ["explorer"] * deck["explorers"] + ["skeleton"] * deck["skeletons"]
    rng.shuffle(cards)
    return {
        "players": seats,
        "options": checked,
        "roles": {str(seat): cards[i] for i, seat in enumerate(seats)},
        "unused_roles": cards[len(seats):],
        "deck": deck,
    }


def _seat_of(data: Mapping[str, Any], seats: Collection[int]) -> int:
    """The seat ``data`` names: one playing in this game."""
    seat = data.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or seat not in seats:
        raise RuleError(N_("That seat is not playing in this game."))
    return seat


def _check_keys(data: object, allowed: Collection[str]) -> dict[str, Any]:
    """An event's data: a dict with no key but the ``allowed`` ones."""
    if not isinstance(data, dict):
        raise RuleError(N_("This event is not understood."))
    for key in data:
        if key not in allowed:
            raise RuleError(N_("This event is not understood."))
    return data


def _explorers(setup_: Setup) -> int:
    """How many seats were dealt an Explorer."""
    return sum(1 for s in setup_["players"] if setup_["roles"][str(s)] == "explorer")


def begin(setup_: Setup) -> State:
    """The table before any event: no marker, 5 face-down cards in front of everyone
    (docs/rules.md#kraken-play). ``replay``'s handlers fold the events into it and
    ``conclude`` turns it into the state ``replay`` returns."""
    options = setup_["options"]
    return {
        "marker": None,
        "first_marker": None,
        "cards": dict.fromkeys(setup_["players"], CARDS_PER_ROUND[0]),
        "reveals": [],
        "actions": 0,
        "deck": dict(setup_["deck"]),
        "counts": dict.fromkeys(kinds_in_play(curse=options["curse"],
                                              specials=options["specials"]), 0),
        "shown": [],
        "judged": {"outcome": None, "team": None, "reason": None},
        "round_over_deal": None,
    }


def _check_host_event(state: State, event: Event) -> None:
    """Every event is the host's, and none comes after the end of the game."""
    if event.get("seat") is not None:
        raise RuleError(N_("Only the host device records the table's actions."))
    if state["judged"]["team"] is not None:
        raise RuleError(N_("The game is over: nothing more can be recorded."))


def _on_marker(setup_: Setup, state: State, event: Event) -> None:
    """Who takes the action marker first: only before the first reveal (re-recording it
    corrects it)."""
    data = _check_keys(event.get("data"), ("seat",))
    seat = _seat_of(data, list(setup_["players"]))
    if state["reveals"]:
        raise RuleError(N_(
            "The first marker holder can only be set before the first reveal."))
    state["marker"] = seat
    state["first_marker"] = seat


def _turn_up(setup_: Setup, state: State, data: Mapping[str, Any], *,
             out_of_turn: bool) -> int:
    """A face-down card in front of a seat is turned up: counted, named when it is a
    Special, and judged (docs/rules.md#kraken-end). An action counts towards the round;
    a card revealed out of turn (a Special card's doing, docs/rules.md#kraken-specials)
    does not. Returns the seat."""
    seats = list(setup_["players"])
    n = len(seats)
    seat = _seat_of(data, seats)
    if state["cards"][seat] == 0:
        raise RuleError(N_("That player has no face-down card left this round."))
    card = data.get("card")
    if not isinstance(card, str):
        raise RuleError(N_("Say which card was revealed."))
    special = data.get("special")
    _count_card(state["deck"], state["counts"], card)
    _check_special(card, special, state["reveals"])
    if not out_of_turn:
        state["actions"] += 1
    actions = state["actions"]
    team, reason = _end_of(n, state["deck"]["treasure_pile"], state["counts"], card,
                           actions, setup_["options"]["curse"])
    _judge(setup_, state, team, reason)
    state["cards"][seat] -= 1
    round_ = (actions - 1) // n + 1 if not out_of_turn else actions // n + 1
    state["reveals"].append({"seat": seat, "card": card, "special": special,
                             "round": round_, "action": actions - (round_ - 1) * n,
                             "out_of_turn": out_of_turn})
    return seat


def _judge(setup_: Setup, state: State, team: str | None, reason: str | None) -> None:
    state["judged"] = {"outcome": _result(len(setup_["players"]), team, _explorers(setup_)),
                       "team": team, "reason": reason}


def _on_reveal(setup_: Setup, state: State, event: Event) -> None:
    """The card in front of a seat was revealed (docs/rules.md#kraken-play); the game may
    end at once (docs/rules.md#kraken-end)."""
    seats = list(setup_["players"])
    n = len(seats)
    data = _check_keys(event.get("data"), ("seat", "card", "special"))
    marker = state["marker"]
    if marker is None:
        raise RuleError(N_("First record who takes the action marker."))
    if _seat_of(data, seats) == marker:
        raise RuleError(N_("The marker holder cannot reveal their own card."))
    seat = _turn_up(setup_, state, data, out_of_turn=False)
    done = state["actions"]
    state["round_over_deal"] = None
    if setup_["options"]["clockwise"]:
        # The 8-player rule (docs/rules.md#kraken-play, docs/rules.md#kraken-decisions):
        # each acts once, clockwise, whoever's card was revealed.
        state["marker"] = seats[(seats.index(marker) + 1) % n]
    else:
        state["marker"] = seat
    if state["judged"]["team"] is None and done % n == 0:
        # docs/rules.md#kraken-play: gather the face-down cards, shuffle, deal 4, 3, 2 each
        # (docs/rules.md#kraken-decisions: evenly, however many a Special card left).
        state["round_over_deal"] = CARDS_PER_ROUND[done // n]
        _deal(setup_, state)


def face_down(setup_: Setup, state: State) -> int:
    """The exploration cards still face down in front of the players: the deck, plus or
    minus what a Special card put into the game or took out of it, less every card
    revealed (docs/rules.md#kraken-specials)."""
    deck, dealt = state["deck"], setup_["deck"]
    added = (deck["treasure_pile"] - dealt["treasure_pile"]) + (deck["empty"] - dealt["empty"])
    total: int = dealt["total"] + added - len(state["reveals"])
    return total


def deal_split(players: Sequence[int], first: int | None, cards: int) -> dict[int, int]:
    """How many of ``cards`` face-down cards each player is dealt at the end of a round
    (docs/rules.md#kraken-play, the split: docs/rules.md#kraken-decisions).

    The box deals them "evenly" (공평하게). When they do not split evenly (a Special card
    turned a card up out of turn, or put one into the game or took one out), they are
    dealt one at a time clockwise starting with ``first``, the marker holder who opens the
    next round, so the players dealt to last take one fewer: 15 cards for 4 players with
    the marker at the first seat are 4, 4, 4, 3. The seats come in that order.
    """
    seats = list(players)
    start_at = seats.index(first) if first in seats else 0
    order = seats[start_at:] + seats[:start_at]
    each, extra = divmod(max(cards, 0), len(order))
    return {seat: each + (1 if i < extra else 0) for i, seat in enumerate(order)}


def deal_shares(split: Mapping[int, int]) -> list[dict[str, Any]]:
    """A deal as the table reads it out: ``[{"cards", "seats"}, ...]``, the most cards
    first, each share's seats in the order they are dealt to."""
    shares: list[dict[str, Any]] = []
    for seat, cards in split.items():
        if shares and shares[-1]["cards"] == cards:
            shares[-1]["seats"].append(seat)
        else:
            shares.append({"cards": cards, "seats": [seat]})
    return shares


def _deal(setup_: Setup, state: State) -> None:
    """The face-down cards dealt anew at the end of a round: how many each player has in
    front of them (docs/rules.md#kraken-decisions)."""
    split = deal_split(setup_["players"], state["marker"], face_down(setup_, state))
    state["cards"] = {seat: split[seat] for seat in setup_["players"]}


# --- what a Special card changes (docs/rules.md#kraken-specials) ----------------------
# The seed names the six cards but breaks off before their abilities, so the app does
# not guess them: once a Special is face up, the table may record any of these generic
# moves, each an ordinary event that the counts, the end check and the history follow.


def _after_a_special(setup_: Setup, state: State) -> None:
    """A Special card's move needs a Special card face up in this game."""
    if not setup_["options"]["specials"]:
        raise RuleError(N_("The Special cards are not in this game."))
    if not any(r["card"] == "special" for r in state["reveals"]):
        raise RuleError(N_("No Special card has been revealed yet in this game."))


def _on_special_marker(setup_: Setup, state: State, event: Event) -> None:
    """A Special card passes the action marker to another player."""
    _after_a_special(setup_, state)
    data = _check_keys(event.get("data"), ("seat",))
    seat = _seat_of(data, list(setup_["players"]))
    if seat == state["marker"]:
        raise RuleError(N_("%(seat)s has the action marker already."), seat=seat)
    state["marker"] = seat
    _deal_again(setup_, state)


def _deal_again(setup_: Setup, state: State) -> None:
    """A Special card's move between the end of a round and its next reveal changes the
    deal the table is about to make: how many cards, or who is dealt to first."""
    if state["round_over_deal"] and state["judged"]["team"] is None:
        _deal(setup_, state)


def _on_special_reveal(setup_: Setup, state: State, event: Event) -> None:
    """A Special card turns up a card out of turn: counted and judged like any reveal
    (the game may end), but it is not an action and the marker stays."""
    _after_a_special(setup_, state)
    data = _check_keys(event.get("data"), ("seat", "card", "special"))
    _turn_up(setup_, state, data, out_of_turn=True)
    _deal_again(setup_, state)


def _on_special_role(setup_: Setup, state: State, event: Event) -> None:
    """A Special card shows one player's role to another. The event names the two seats
    only: the role is the deal's, shown on the viewer's phone alone."""
    _after_a_special(setup_, state)
    data = _check_keys(event.get("data"), ("seat", "to"))
    seats = list(setup_["players"])
    seat = _seat_of(data, seats)
    to = _seat_of({"seat": data.get("to")}, seats)
    if seat == to:
        raise RuleError(N_("A player knows their own role: choose someone else to see it."))
    if any(s["seat"] == seat and s["to"] == to for s in state["shown"]):
        raise RuleError(N_("%(to)s has seen %(seat)s's role already."), seat=seat, to=to)
    state["shown"].append({"seat": seat, "to": to})


COUNTED_KINDS = ("treasure", "empty")


def _on_special_count(setup_: Setup, state: State, event: Event) -> None:
    """A Special card puts one Treasure or Empty box more into the game, or takes one
    still face-down out of it. A Treasure changes the treasure pile, so the Explorers'
    goal follows (and taking out the last one still hidden wins it for them)."""
    _after_a_special(setup_, state)
    data = _check_keys(event.get("data"), ("kind", "by"))
    kind, by = data.get("kind"), data.get("by")
    if kind not in COUNTED_KINDS or isinstance(by, bool) or by not in (-1, 1):
        raise RuleError(N_("Say which count goes up or down by one."))
    n = len(setup_["players"])
    curse = setup_["options"]["curse"]
    deck = state["deck"]
    if by < 0 and _hidden(deck, state["counts"], curse)[1][kind][1] == 0:
        raise RuleError(_NONE_HIDDEN[kind])
    if by > 0 and deck[kind] >= BOX[kind]:
        raise RuleError(_BOX_FULL[kind], limit=BOX[kind])
    deck[kind] += by
    if kind == "treasure":
        deck["treasure_pile"] += by
        if curse:
            deck["treasure_min"] += by
    team, reason = _end_of(n, deck["treasure_pile"], state["counts"], None,
                           state["actions"], curse)
    _judge(setup_, state, team, reason)
    _deal_again(setup_, state)


_NONE_HIDDEN = {
    "treasure": N_("No Treasure is still face-down: none can leave the game."),
    "empty": N_("No Empty box is still face-down: none can leave the game."),
}
_BOX_FULL = {
    "treasure": N_("The box holds only %(limit)s Treasures."),
    "empty": N_("The box holds only %(limit)s Empty boxes."),
}

NOTE_MAX = 200


def _on_note(setup_: Setup, state: State, event: Event) -> None:
    """A line the table writes into the history (what a Special card did that the app
    does not know, or anything else); it changes nothing."""
    data = _check_keys(event.get("data"), ("text",))
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise RuleError(N_("Write the note first."))
    if len(text) > NOTE_MAX or text != text.strip() or not text.isprintable():
        raise RuleError(N_("A note is one line of at most %(limit)s characters."),
                        limit=NOTE_MAX)


def _check_special(card: str, special: object, reveals: Iterable[Mapping[str, Any]]) -> None:
    """A Special card is named, once per game (docs/rules.md#kraken-specials,
    docs/rules.md#kraken-decisions); no other card has a name."""
    if card == "special":
        if special not in SPECIAL_NAMES:
            raise RuleError(N_("Say which Special card was revealed."))
        if any(r["special"] == special for r in reveals):
            raise RuleError(N_("That Special card has already been revealed."))
    elif special is not None:
        raise RuleError(N_("Only a Special card has a name."))


HANDLERS: dict[str, Handler] = {
    "marker": _on_marker, "reveal": _on_reveal, "special_marker": _on_special_marker,
    "special_reveal": _on_special_reveal, "special_role": _on_special_role,
    "special_count": _on_special_count, "note": _on_note,
}


def _winners_losers(setup_: Setup, result: str | None) -> tuple[list[int], list[int]]:
    """(winners, losers) for an outcome: the winning team's seats and the others; everyone
    loses when "nobody" won (docs/rules.md#kraken-end); both empty while the game goes
    on."""
    seats = list(setup_["players"])
    if result in ("explorers", "skeletons"):
        role_won = {"explorers": "explorer", "skeletons": "skeleton"}[result]
        winners = [s for s in seats if setup_["roles"][str(s)] == role_won]
        losers = [s for s in seats if setup_["roles"][str(s)] != role_won]
        return winners, losers
    if result == "nobody":
        return [], seats
    return [], []


def conclude(setup_: Setup, state: State) -> State:
    """The state ``replay`` returns, from the table after the last event: where the game
    is (at the end: where the last reveal left it), what is still face-down, and (once
    over) who won and every role (docs/rules.md#kraken-decisions)."""
    seats = list(setup_["players"])
    n = len(seats)
    options = setup_["options"]
    curse = options["curse"]
    reveals = state["reveals"]
    judged = state["judged"]
    finished = judged["team"] is not None
    actions = state["actions"]
    if finished:
        # Where the last action left the game (a card revealed out of turn, or a count
        # a Special card changed, may have ended it after that action).
        round_ = (actions - 1) // n + 1
        action = actions - (round_ - 1) * n
    else:
        round_ = actions // n + 1
        action = actions % n + 1
    counts = state["counts"]
    deck = state["deck"]
    hidden, ranges = _hidden(deck, counts, curse)
    found = counts["treasure"] + (counts["curse"] if curse else 0)
    result = judged["outcome"]
    winners, losers = _winners_losers(setup_, result)
    return {
        "players": seats,
        "options": dict(options),
        "round": round_,
        "action": action,
        "actions_per_round": n,
        "marker": state["marker"],
        "first_marker": state["first_marker"],
        "cards_in_front": {str(s): state["cards"][s] for s in seats},
        "revealed": dict(counts),
        "hidden": hidden,
        "hidden_range": ranges,
        "special_revealed": [r["special"] for r in reveals if r["card"] == "special"],
        "treasures_to_find": deck["treasure_pile"] - found,
        "treasure_pile": deck["treasure_pile"],
        "in_game": {kind: deck[kind] for kind in COUNTED_KINDS},
        "shown": [dict(s) for s in state["shown"]],
        "round_over_deal": state["round_over_deal"],
        "deal": _the_deal(setup_, state) if state["round_over_deal"] and not finished else None,
        "outcome": result,
        "reason": judged["reason"],
        "winners": winners,
        "losers": losers,
        "finished": finished,
        "roles": dict(setup_["roles"]) if finished else None,
        "unused_roles": list(setup_["unused_roles"]) if finished else None,
        "reveals": reveals,
    }


def _the_deal(setup_: Setup, state: State) -> dict[str, Any]:
    """The deal the table makes now that a round has ended: how many cards, and who
    takes how many (docs/rules.md#kraken-decisions)."""
    split = deal_split(setup_["players"], state["marker"], face_down(setup_, state))
    return {"cards": sum(split.values()), "shares": deal_shares(split)}


def replay(setup_: Setup, events: Iterable[Event]) -> State:
    """Fold the host's events into the table's state (docs/rules.md#kraken-play,
    docs/rules.md#kraken-end and the expansions).

    Events: "marker" ``{"seat"}`` — who takes the action marker first, only before the
    first reveal (re-recording it corrects it); "reveal" ``{"seat", "card", "special"}``
    — the card in front of ``seat`` was revealed; "note" ``{"text"}`` — a line for the
    history. Once a Special card is face up (docs/rules.md#kraken-specials):
    "special_marker" ``{"seat"}`` — the marker goes to ``seat``; "special_reveal"
    ``{"seat", "card", "special"}`` — a card revealed out of turn (not an action);
    "special_role" ``{"seat", "to"}`` — ``seat``'s role was shown to ``to``;
    "special_count" ``{"kind": "treasure" | "empty", "by": 1 | -1}`` — one card of that
    kind more in the game, or one still face-down out of it. See the module docstring for
    the state.
    """
    return replayed(setup_, events, begin, step, conclude)


def step(setup_: Setup, state: State, event: Event) -> None:
    """Fold one event into a state from :func:`begin` (``replay``'s loop, one turn);
    RuleError if the rules forbid it."""
    kind = event.get("type")
    if kind not in HANDLERS:
        raise RuleError(N_("This event is not understood."))
    _check_host_event(state, event)
    HANDLERS[kind](setup_, state, event)


_REVEAL_LINES = {
    "empty": N_("%(seat)s's card is revealed: an Empty box."),
    "treasure": N_("%(seat)s's card is revealed: a Treasure!"),
    "kraken": N_("%(seat)s's card is revealed: the Kraken!"),
    "curse": N_("%(seat)s's card is revealed: a Greedy Captain's Curse."),
}
_SPECIAL_LINES = {
    "lost_treasure": N_("%(seat)s's card is revealed: the Special card Lost Treasure."),
    "skeletons_grasp": N_("%(seat)s's card is revealed: the Special card Skeleton's Grasp."),
    "revealed_identity": N_(
        "%(seat)s's card is revealed: the Special card Revealed Identity."),
    "krakens_presence": N_("%(seat)s's card is revealed: the Special card Kraken's Presence."),
    "light_in_the_deep": N_(
        "%(seat)s's card is revealed: the Special card Light in the Deep."),
    "captains_obsession": N_(
        "%(seat)s's card is revealed: the Special card Captain's Obsession."),
}


_OUT_OF_TURN_LINES = {
    "empty": N_("Special card: %(seat)s's card is revealed out of turn: an Empty box."),
    "treasure": N_("Special card: %(seat)s's card is revealed out of turn: a Treasure!"),
    "kraken": N_("Special card: %(seat)s's card is revealed out of turn: the Kraken!"),
    "curse": N_(
        "Special card: %(seat)s's card is revealed out of turn: a Greedy Captain's Curse."),
    "lost_treasure": N_("Special card: %(seat)s's card is revealed out of turn: the "
                        "Special card Lost Treasure."),
    "skeletons_grasp": N_("Special card: %(seat)s's card is revealed out of turn: the "
                          "Special card Skeleton's Grasp."),
    "revealed_identity": N_("Special card: %(seat)s's card is revealed out of turn: the "
                            "Special card Revealed Identity."),
    "krakens_presence": N_("Special card: %(seat)s's card is revealed out of turn: the "
                           "Special card Kraken's Presence."),
    "light_in_the_deep": N_("Special card: %(seat)s's card is revealed out of turn: the "
                            "Special card Light in the Deep."),
    "captains_obsession": N_("Special card: %(seat)s's card is revealed out of turn: the "
                             "Special card Captain's Obsession."),
}
_COUNT_LINES = {
    ("treasure", 1): N_("Special card: one Treasure more in the game."),
    ("treasure", -1): N_("Special card: one Treasure fewer in the game."),
    ("empty", 1): N_("Special card: one Empty box more in the game."),
    ("empty", -1): N_("Special card: one Empty box fewer in the game."),
}


def describe(event: Event) -> tuple[str, dict[str, Any]]:
    """A history line for an event, as (N_(message), params). ``seat`` in the params is
    the seat number the line is about (the view shows that player's name). Cards are
    public; a role never appears here."""
    data = event.get("data") or {}
    seat = data.get("seat")
    if event.get("type") == "marker":
        return N_("%(seat)s takes the action marker first."), {"seat": seat}
    if event.get("type") == "reveal":
        card = data.get("card")
        if card == "special" and data.get("special") in _SPECIAL_LINES:
            return _SPECIAL_LINES[data["special"]], {"seat": seat}
        if card in _REVEAL_LINES:
            return _REVEAL_LINES[card], {"seat": seat}
        return N_("%(seat)s's card is revealed: a Special card."), {"seat": seat}
    if event.get("type") == "special_reveal":
        card = data.get("card")
        name = data.get("special") if card == "special" else card
        if name in _OUT_OF_TURN_LINES:
            return _OUT_OF_TURN_LINES[name], {"seat": seat}
        return N_("Special card: %(seat)s's card is revealed out of turn."), {"seat": seat}
    if event.get("type") == "special_marker":
        return N_("Special card: the action marker goes to %(seat)s."), {"seat": seat}
    if event.get("type") == "special_role":
        return N_("Special card: %(to)s sees %(seat)s's role."), {
            "seat": seat, "to": data.get("to")}
    if event.get("type") == "special_count":
        key = (data.get("kind"), data.get("by"))
        if key in _COUNT_LINES:
            return _COUNT_LINES[key], {}
    if event.get("type") == "note":
        return N_("Note: %(text)s"), {"text": data.get("text")}
    return N_("Something was recorded."), {}


# --- the token series (docs/rules.md#kraken-series) -----------------------------------


def series_tokens(players: Iterable[int],
                  results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Tokens in a series (docs/rules.md#kraken-series).

    ``players`` is the list of seats in the series; ``results`` the finished games in
    order, each ``{"losers": [seat, ...]}`` (every player of the losing team; everyone
    when nobody won). Each loser gets a token; once someone has 3 the series is over
    and the player(s) with the fewest tokens win, ties sharing the win. A game after
    the series is over is refused.

    Returns ``{"tokens": {str(seat): n}, "over": bool, "winners": [seat, ...] (empty
    until over), "games": number of games}``.
    """
    seats = _check_seats(list(players))
    tokens = dict.fromkeys(seats, 0)
    over = False
    for game in results:
        if over:
            raise RuleError(N_("The token series is already over."))
        losers = game.get("losers") if isinstance(game, dict) else None
        if not isinstance(losers, list | tuple) or not losers:
            raise RuleError(N_("A finished game always has a losing team."))
        if len(set(losers)) != len(losers):
            raise RuleError(N_("Each loser takes one token per game."))
        for seat in losers:
            if isinstance(seat, bool) or seat not in tokens:
                raise RuleError(N_("That seat is not playing in this series."))
        for seat in losers:
            tokens[seat] += 1
        over = max(tokens.values()) >= TOKENS_TO_END_SERIES
    fewest = min(tokens.values())
    return {
        "tokens": {str(s): tokens[s] for s in seats},
        "over": over,
        "winners": [s for s in seats if tokens[s] == fewest] if over else [],
        "games": len(results),
    }


# --- what the table does next (the host's line and the room's screen) ----------------

_GAME_OVER = {"explorers": N_("Game over: the Explorers win"),
              "skeletons": N_("Game over: the Skeletons win"),
              "nobody": N_("Game over: nobody wins")}


def moment(setup_: Setup, state: State) -> str:
    """The moment of the game a line is drawn for (companion/core/registry.py): "roles"
    (everyone reads their role, nobody has the marker yet), "round-over" (gather and
    deal the next round's cards), "reveal" (the holder chooses whose card), "finished"."""
    if state["finished"]:
        return "finished"
    if state["marker"] is None:
        return "roles"
    return "round-over" if state["round_over_deal"] else "reveal"


def next_step(setup_: Setup, state: State) -> tuple[str, dict[str, Any]]:
    """What the table does next, as (N_(message), params) with players as lists of seats
    (docs/rules.md#kraken-play, docs/rules.md#kraken-end): before the marker, everyone
    reads their role and the last one at sea takes it; at the end of a round, gather,
    shuffle and deal the next round's cards; else the holder chooses whose card is
    revealed; at the end, the team that won. Never a role."""
    if state["finished"]:
        return _GAME_OVER[state["outcome"]], {}
    holder = [state["marker"]] if state["marker"] is not None else []
    if not holder:
        return N_("Look at your roles on your phones. Who was at sea most recently takes "
                  "the action marker."), {}
    deal = state.get("deal")  # a state stored before the deal was worked out has none
    if deal and len(deal["shares"]) > 1:
        # docs/rules.md#kraken-decisions: a Special card left cards that do not split evenly.
        more, fewer = deal["shares"]
        return N_("Round %(round)s over: gather and shuffle the %(cards)s face-down cards, "
                  "then deal %(high)s to %(more)s; %(low)s to %(fewer)s · %(holder)s has "
                  "the marker"), {
            "round": state["round"] - 1, "cards": deal["cards"], "high": more["cards"],
            "more": more["seats"], "low": fewer["cards"], "fewer": fewer["seats"],
            "holder": holder}
    if state["round_over_deal"]:
        return N_("Round %(round)s over: gather, shuffle and deal %(cards)s each · "
                  "%(holder)s has the marker"), {
            "round": state["round"] - 1,
            "cards": deal["shares"][0]["cards"] if deal else state["round_over_deal"],
            "holder": holder}
    return N_("%(holder)s has the marker: whose card?"), {"holder": holder}
