"""Skull King as the scorekeeper's tablet knows it: pure functions, no Flask, no SQL.

Authority: docs/rules.md#skull-king (the seed's classic edition, scored as
docs/rules.md#skull-king-scoring says, and the 2021 edition, docs/rules.md#skull-king-2021).
The app never sees the cards; it records bids, tricks won and bonus counters, and scores
every round through :func:`round_score` only.

Conventions (shared by the setup, the events and the state):

* A player is a **seat number** (int). Dicts keyed by player use ``str(seat)`` keys, so the
  state survives a JSON round trip unchanged; lists of players hold ints.
* An event's ``data["round"]`` is the round **number** (1-based, ``rounds[i]["number"]``);
  ``state["current"]`` is the 0-based **index** of the current round in ``state["rounds"]``.

Decisions where the rules are silent (docs/rules.md#skull-king-decisions; each repeated
where it is implemented):

* Rascal's scoring with a bid of 0 uses the same formula on ``|bid - won|``.
* Under Rascal's scoring bonuses are paid in full on a direct hit, halved on a glancing
  blow (off by one), and not at all otherwise. Loot is the exception:
  docs/rules.md#skull-king-2021 says it pays "only if both bid exactly", so it is never
  halved.
* The Rascal of Roatan wager is a side bet outside Rascal's "never negative": a lost wager
  can take a round below zero.
* A named way to play whose rounds deal more cards than the deck allows for this table is
  capped (``setup["capped"] = True``); a custom sequence above the cap is refused, since
  the host typed that number.
* The bids' total is shown only once the bids are revealed (before that it would leak).
* Shared ranks are competition ranks: totals 50, 50, 20 rank 1, 1, 3.
* Loot is recorded as pairs (who played it, who captured it) with the round's results; a
  pair pays +20 to each of its two players only when both bid exactly; a Loot captured by
  the player who played it pays nothing; the captor must have won a trick.
* The Rascal of Roatan's wager is recorded with the round's results (it is declared when
  the card is played), one per round, a wager of 0 included. Older logs hold it in the
  bid event, and still replay as they were scored; the forms never send it there.
* A write made from an older screen is stale only when the events since touch it
  (:func:`conflicts`): bids of different seats never collide, and "Yo-ho-ho!" is refused
  only when a bid is missing or the round moved on (docs/rules.md#skull-king-decisions).

House rules, chosen when the game starts, both off by default
(docs/rules.md#skull-king-house-rules):

* "Bonuses count on a missed bid" (``missed_bonuses``): under Skull King scoring every
  bonus, Loot included, is paid whatever the bid; refused with Rascal's scoring, which
  has its own rule for bonuses off the bid.
* "Adjustments" (``adjustments``): the host may record, for a scored round, a whole
  number of points for one player (−200 to +200) with a short reason; one per player and
  round, a later one replacing it, 0 taking it back. It is added after the scoring."""

import random
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

from companion.core.errors import N_, RuleError
from companion.core.events import REDO, UNDO
from companion.core.ranking import competition_ranks
from companion.core.registry import replayed
from companion.skullking.scoring import (
    DECK,
    EDITIONS,
    MOST,
    MOST_ADJUSTMENT,
    SCORINGS,
    SHOTS,
    TOO_MANY,
    WAGERS,
    count_of,
    is_int,
    loot_paid,
    round_score,
)

#: The 2021 advanced cards shuffled into the deck when in play, and how many of each:
#: with all of them the deck is 74 cards (docs/rules.md#skull-king-deck-rulings).
ADVANCED_CARDS = {"loot": 2, "kraken": 1, "white_whale": 1}


#: Players per edition: classic 2–6 (the seed), 2021 2–8.
PLAYERS = {"classic": (2, 6), "2021": (2, 8)}


#: No official way to play deals more than 10 cards a round.
MOST_CARDS = 10


#: A custom sequence has at least 1 and at most this many rounds.
MOST_ROUNDS = 20


# Bids one seat may record in a round (the first and its changes): the forms refuse more,
# so a log stays within what an export carries (companion/core/exchange.py MAX_EVENTS) at 8
# players and 20 rounds. Older logs with more still replay.
MOST_BIDS = 21


#: Ways to play, in the order a menu shows them: name -> cards dealt per round
#: (docs/rules.md#skull-king-2021, "Ways to play"; the 10-round Even Keeled and Whirlpool).
WAYS = {
    "standard": list(range(1, 11)),
    "even_keeled": [2, 2, 4, 4, 6, 6, 8, 8, 10, 10],
    "skip_to_the_brawl": [6, 7, 8, 9, 10],
    "swift_n_salty": [5, 5, 5, 5, 5],
    "broadside": [10] * 10,
    "whirlpool": [9, 9, 7, 7, 5, 5, 3, 3, 1, 1],
    "past_your_bedtime": [1],
}


CUSTOM = "custom"


COUNTERS = tuple(MOST)


ADVANCED = ("loot", "kraken", "white_whale", "abilities")


#: The house rules a game may be started with (docs/rules.md#skull-king-house-rules).
#: A setup holds each only when it is on, so a game started before they existed has
#: the very setup it had.
HOUSE_RULES = ("missed_bonuses", "adjustments")


REASON_LENGTH = 40


OPTIONS = ("edition", "scoring", "way", "rounds", "loot", "kraken", "white_whale",
           "abilities", "first_dealer", *HOUSE_RULES)


RESULT_KEYS = ("won", *COUNTERS, "harry", "wager")


HOST_EVENTS = frozenset({"bid", "reveal_bids", "result", "correct", "adjust"})


SEAT_EVENTS = frozenset({"bid"})


#: Events after which a bid or "Yo-ho-ho!" made from an older screen is stale: each one
#: moves the round on (or takes something back). Undo and redo are the log's own.
MOVES = frozenset({"reveal_bids", "result", "correct", UNDO, REDO})


#: The setup ``start`` returns, the state ``replay`` folds, one event of the log: JSON.
Setup = dict[str, Any]


State = dict[str, Any]


Event = Mapping[str, Any]


#: Applies one event to the state (``replay`` looks them up in :data:`HANDLERS`).
Handler = Callable[[Setup, State, Event], None]


#: A seat's bid, shot and wager: {str(seat): (bid, shot, wager)}.
Bids = dict[str, tuple[int, str | None, int | None]]


def conflicts(later: Sequence[Event], event: Event) -> bool:
    """Whether ``event``, made from a screen that had not seen the ``later`` events, is
    stale: "the table moved on" (docs/rules.md#skull-king-decisions, docs/rules.md#event-log).

    * A bid collides only with a later bid of the same seat for the same round (someone
      else changed that very bid) or with an event that moves the round (:data:`MOVES`):
      bids of different seats, from phones or the tablet, never collide.
    * "Yo-ho-ho!" reveals the bids that are in when it arrives: only an event that moves
      the round makes it stale, never a bid that came in or changed (the rules still
      refuse it while a bid is missing).
    * A correction of a scored round is not touched by the current round's bids.
    * An adjustment (a house rule) collides with an event that moves the round or with
      a later adjustment of the same player and round, never with bids.
    * Anything else (the round's results, undo, redo) is stale after any later event.
    """
    kind = event.get("type")
    if kind in ("bid", "adjust"):
        data = event.get("data") or {}
        return any(_moves(other) or _same_seat_round(other, kind, data) for other in later)
    if kind in ("reveal_bids", "correct"):
        return any(_moves(other) for other in later)
    return bool(later)


def _moves(event: Event) -> bool:
    return event.get("type") in MOVES


def _same_seat_round(event: Event, kind: str, data: Mapping[str, Any]) -> bool:
    """``event`` is of type ``kind`` (a bid, an adjustment) for the same seat and round
    as ``data``."""
    other = event.get("data") or {}
    return (event.get("type") == kind and other.get("seat") == data.get("seat")
            and other.get("round") == data.get("round"))


def deck_size(edition: str, options: Mapping[str, Any] | None = None) -> int:
    """The cards shuffled and dealt from: the edition's deck (classic 66, 2021 70) plus the
    2021 advanced cards in play, 2 Loot, the Kraken and the White Whale (74 with all of
    them; the blank cards are never dealt) (docs/rules.md#skull-king-deck-rulings)."""
    if edition not in EDITIONS:
        raise RuleError(N_("Unknown edition: %(edition)s."), edition=str(edition))
    options = options or {}
    return DECK[edition] + sum(count for name, count in ADVANCED_CARDS.items()
                               if options.get(name) is True)


def max_cards(players: int | Sequence[int], edition: str, deck: int | None = None) -> int:
    """The most cards a round may deal to each hand at this table
    (docs/rules.md#skull-king-2021, docs/rules.md#skull-king-deck-rulings).

    ``players`` is a count (or the list of seats); ``deck`` the cards dealt from
    (:func:`deck_size`; the edition's deck without advanced cards when None). Every hand
    gets as many cards, Graybeard's ghost's included in a 2-player 2021 game, and no
    official way deals more than 10. So 7 players get 10 cards a round; 8 players 8 from
    the 70-card deck (or 71 with only the Kraken or the White Whale), and 9 when the
    deck holds 72 or more (both Loot, or the Kraken and the White Whale: 74 with all).
    """
    count = players if is_int(players) else len(cast("Sequence[int]", players))
    if edition not in EDITIONS:
        raise RuleError(N_("Unknown edition: %(edition)s."), edition=str(edition))
    hands = count + 1 if _has_ghost(count, edition) else count
    cards = DECK[edition] if deck is None else deck
    return min(MOST_CARDS, cards // max(hands, 1))


def _has_ghost(count: int, edition: str) -> bool:
    """Two players in the 2021 edition deal a third hand to Graybeard's ghost."""
    return edition == "2021" and count == 2


def start(players: Iterable[int], options: Mapping[str, Any] | None,
          rng: random.Random | None = None, *, advanced_in_deck: bool = True) -> Setup:
    """Validate the options and return the game's setup (docs/rules.md#skull-king).

    ``options``: ``edition`` ("2021" by default, or "classic"), ``scoring``
    ("skull_king" or "rascal", 2021 only), ``way`` (a key of :data:`WAYS` or "custom"
    with ``rounds`` a list of 1..:data:`MOST_ROUNDS` card counts each within
    :func:`max_cards`), the 2021 advanced cards ``loot``, ``kraken``, ``white_whale`` and
    ``abilities`` (Rascal of Roatan and Harry the Giant) as bools, and ``first_dealer`` (a
    seat; default the first player), and the house rules ``missed_bonuses`` and
    ``adjustments`` as bools (docs/rules.md#skull-king-house-rules; off by default, and
    then not in the setup). A named way that deals more than the deck allows at this
    table is capped, and ``capped`` says so; the cap counts the advanced cards in the
    deck (:func:`max_cards`, docs/rules.md#skull-king-deck-rulings), which setups made
    before that ruling did not: ``advanced_in_deck=False`` makes such a setup again (an
    import of an older export). An option given as None takes its default. ``rng`` is
    unused (nothing is random).
    """
    del rng  # the real deck is shuffled on the table; nothing here is random
    options = dict(options or {})
    stray = sorted(set(options) - set(OPTIONS))
    if stray:
        raise RuleError(N_("Unknown option: %(option)s."), option=stray[0])
    options = {key: value for key, value in options.items() if value is not None}
    edition = options.get("edition", "2021")
    scoring = options.get("scoring", "skull_king")
    _check_edition(edition, scoring)
    players = _check_players(players, edition)
    advanced = _advanced(options, edition)
    cap = max_cards(len(players), edition,
                    deck_size(edition, advanced if advanced_in_deck else None))
    way = options.get("way", "standard")
    rounds, capped = _rounds(options, way, cap)
    first_dealer = options.get("first_dealer", players[0])
    if first_dealer not in players or not is_int(first_dealer):
        raise RuleError(N_("The first dealer must be one of the players."))
    house = _house_rules(options, scoring)

    return {
        "players": players,
        "edition": edition,
        "scoring": scoring,
        "way": way,
        "rounds": list(rounds),
        "capped": capped,
        "max_cards": cap,
        "ghost": _has_ghost(len(players), edition),
        "first_dealer": first_dealer,
        **advanced,
        **house,
    }


def _house_rules(options: Mapping[str, Any], scoring: str) -> dict[str, bool]:
    """The house rules that are on, as ``{name: True}`` (docs/rules.md#skull-king-house-rules):
    each yes or no; bonuses on a missed bid only with Skull King scoring. A rule that is
    off is left out of the setup, so an older game's setup is made again unchanged."""
    house: dict[str, bool] = {}
    for name in HOUSE_RULES:
        value = options.get(name, False)
        if not isinstance(value, bool):
            raise RuleError(N_("The house rules are yes or no."), option=name)
        if value:
            house[name] = True
    if house.get("missed_bonuses") and scoring != "skull_king":
        raise RuleError(N_("“Bonuses count on a missed bid” is a house rule of Skull King "
                           "scoring: Rascal's scoring has its own rule for bonuses."),
                        option="missed_bonuses")
    return house


def house_rules(setup: Mapping[str, Any]) -> list[str]:
    """The house rules a game is played with, in :data:`HOUSE_RULES` order (none for a
    game started without them, or before they existed)."""
    return [name for name in HOUSE_RULES if setup.get(name)]


def _check_edition(edition: object, scoring: object) -> None:
    """The edition and scoring exist, and Rascal's scoring is played with the 2021
    edition only (docs/rules.md#skull-king-2021)."""
    if edition not in EDITIONS:
        raise RuleError(N_("Unknown edition: %(edition)s."), edition=str(edition))
    if scoring not in SCORINGS:
        raise RuleError(N_("Unknown scoring: %(scoring)s."), scoring=str(scoring))
    if scoring == "rascal" and edition == "classic":
        raise RuleError(N_("Rascal's scoring belongs to the 2021 edition."))


def _check_players(players: Iterable[int], edition: str) -> list[int]:
    """The players as a list: distinct seat numbers, as many as the edition allows
    (classic 2–6, docs/rules.md#skull-king; 2021 2–8, docs/rules.md#skull-king-2021)."""
    players = list(players)
    if not all(is_int(seat) and seat >= 0 for seat in players):
        raise RuleError(N_("Players are seat numbers."))
    if len(set(players)) != len(players):
        raise RuleError(N_("A seat can play only once."))
    low, high = PLAYERS[edition]
    if not low <= len(players) <= high:
        raise RuleError(N_("This edition is for %(low)s to %(high)s players."),
                        low=low, high=high)
    return players


def _advanced(options: Mapping[str, Any], edition: str) -> dict[str, bool]:
    """The 2021 advanced options (Loot, Kraken, White Whale, pirate abilities) as bools,
    off by default; the classic edition has none of them (docs/rules.md#skull-king-2021)."""
    advanced: dict[str, bool] = {}
    for name in ADVANCED:
        value = options.get(name, False)
        if not isinstance(value, bool):
            raise RuleError(N_("The advanced options are yes or no."), option=name)
        if value and edition == "classic":
            raise RuleError(N_("Loot, Kraken, White Whale and the pirate abilities belong "
                               "to the 2021 edition."), option=name)
        advanced[name] = value
    return advanced


def _rounds(options: Mapping[str, Any], way: object, cap: int) -> tuple[list[int], bool]:
    """(cards dealt per round, capped) for the way to play (docs/rules.md#skull-king-2021,
    "Ways to play"): a named way's rounds capped at ``cap`` cards, or a custom list of
    1..MOST_ROUNDS rounds within the cap (docs/rules.md#skull-king-decisions)."""
    if way == CUSTOM:
        rounds = options.get("rounds")
        if not isinstance(rounds, list) or not 1 <= len(rounds) <= MOST_ROUNDS:
            raise RuleError(N_("A custom game has 1 to %(most)s rounds."), most=MOST_ROUNDS)
        for cards in rounds:
            if not is_int(cards) or not 1 <= cards <= cap:
                raise RuleError(N_("Each round deals 1 to %(cap)s cards at this table."),
                                cap=cap)
        return rounds, False
    if way in WAYS:
        if "rounds" in options:
            raise RuleError(N_("Only a custom game takes a list of rounds."))
        rounds = [min(cards, cap) for cards in WAYS[way]]
        return rounds, rounds != WAYS[way]
    raise RuleError(N_("Unknown way to play: %(way)s."), way=str(way))


def _new_round(setup: Setup, index: int) -> dict[str, Any]:
    """Round ``index``: cards from the way to play; the dealer moves one seat clockwise
    each round from the first dealer, and the player left of the dealer leads
    (docs/rules.md#skull-king)."""
    players = setup["players"]
    first = players.index(setup["first_dealer"])
    dealer = players[(first + index) % len(players)]
    lead = players[(first + index + 1) % len(players)]
    return {
        "number": index + 1,
        "cards": setup["rounds"][index],
        "dealer": dealer,
        "lead": lead,
        "bids": {},
        "bid_count": {},
        "bid_done": [],
        "shots": {},
        "wagers": {},
        "revealed": False,
        "bid_total": None,
        "results": None,
        "discarded": 0,
        "loot": [],
        "final_bids": None,
        "inputs": None,
        "adjust": {},
        "points": None,
        "totals": None,
        "corrected": False,
    }


def _round_for(state: State, data: Mapping[str, Any]) -> dict[str, Any]:
    """The round ``data["round"]`` names (a 1-based number)."""
    number = data.get("round")
    if not is_int(number) or not 1 <= number <= len(state["rounds"]):
        raise RuleError(N_("There is no round %(round)s."), round=str(number))
    rnd: dict[str, Any] = state["rounds"][number - 1]
    return rnd


def _seat_key(setup: Setup, key: object) -> int:
    """A results/bids key: ``str(seat)`` of a player in this game."""
    if isinstance(key, str) and key.lstrip("-").isdigit() and int(key) in setup["players"]:
        return int(key)
    if is_int(key) and key in setup["players"]:
        return key
    raise RuleError(N_("That seat is not in this game."))


def _check_bid(setup: Setup, rnd: Mapping[str, Any], seat: int, bid: object, shot: object,
               wager: object) -> tuple[int, str | None, int | None]:
    """A bid is 0..cards; a shot only under Rascal's scoring; a wager only with the
    pirate abilities, and only 0, 10 or 20 (docs/rules.md#skull-king-2021). Returns
    (bid, shot, wager)."""
    if not is_int(bid) or not 0 <= bid <= rnd["cards"]:
        raise RuleError(N_("A bid must be between 0 and %(cards)s."), cards=rnd["cards"],
                        seat=seat)
    if shot not in SHOTS:
        raise RuleError(N_("Unknown shot: %(shot)s."), shot=str(shot), seat=seat)
    if shot is not None and setup["scoring"] != "rascal":
        raise RuleError(N_("Grapeshot and Cannonball belong to Rascal's scoring."), seat=seat)
    return bid, shot, _check_wager(setup, wager, seat)


def _check_wager(setup: Setup, wager: object, seat: int) -> int | None:
    """A wager is None, or 0, 10 or 20 with the pirate abilities (Rascal of Roatan,
    docs/rules.md#skull-king-2021)."""
    if wager is None:
        return None
    if not setup["abilities"]:
        raise RuleError(N_("A wager needs the pirate abilities."), seat=seat, at="wager")
    if not is_int(wager) or wager not in WAGERS:
        raise RuleError(N_("A wager is 0, 10 or 20."), seat=seat, at="wager")
    return wager


def _on_bid(setup: Setup, state: State, event: Event) -> None:
    """A bid for round r (docs/rules.md#skull-king): only while r is the current round
    and before the reveal; a new bid before the reveal replaces the earlier one. A phone
    bids for its own seat only (docs/rules.md#event-log). Under Rascal's scoring the shot
    (Grapeshot or Cannonball) is chosen with the bid. A ``wager`` in a bid is what older
    logs hold (the wager now comes with the round's results,
    docs/rules.md#skull-king-decisions): it replays as it was recorded."""
    data = event["data"]
    rnd = _round_for(state, data)
    seat = data.get("seat")
    if not is_int(seat) or seat not in setup["players"]:
        raise RuleError(N_("That seat is not in this game."))
    if event.get("seat") is not None and event["seat"] != seat:
        raise RuleError(N_("A phone can only bid for its own seat."))
    if state["finished"]:
        raise RuleError(N_("The game is over."))
    if rnd["number"] != state["current"] + 1:
        raise RuleError(N_("Round %(round)s is not the round being bid."), round=rnd["number"])
    if rnd["revealed"]:
        raise RuleError(N_("The bids for round %(round)s are already revealed."),
                        round=rnd["number"])
    stray = sorted(set(data) - {"round", "seat", "bid", "shot", "wager"})
    if stray:
        raise RuleError(N_("Unknown field: %(field)s."), field=stray[0])
    bid, shot, wager = data.get("bid"), data.get("shot"), data.get("wager")
    _check_bid(setup, rnd, seat, bid, shot, wager)
    key = str(seat)
    rnd["bid_count"][key] = rnd["bid_count"].get(key, 0) + 1
    rnd["bids"][key] = bid
    rnd["shots"][key] = shot
    rnd["wagers"][key] = wager
    rnd["bid_done"] = [s for s in setup["players"] if str(s) in rnd["bids"]]


def bids_left(state: State, round_number: int, seat: int) -> int:
    """How many more bids ``seat`` may record in round ``round_number``
    (docs/rules.md#skull-king-decisions)."""
    rounds = state["rounds"]
    if not 1 <= round_number <= len(rounds):
        return MOST_BIDS
    made: int = rounds[round_number - 1].get("bid_count", {}).get(str(seat), 0)
    return max(0, MOST_BIDS - made)


def _on_reveal(setup: Setup, state: State, event: Event) -> None:
    """"Yo-ho-ho!": all bids are shown at once, only when every player has bid
    (docs/rules.md#skull-king); only then is their total known
    (docs/rules.md#skull-king-decisions)."""
    rnd = _round_for(state, event["data"])
    if state["finished"] or rnd["number"] != state["current"] + 1:
        raise RuleError(N_("Round %(round)s is not the round being bid."), round=rnd["number"])
    if rnd["revealed"]:
        raise RuleError(N_("The bids for round %(round)s are already revealed."),
                        round=rnd["number"])
    missing = len(setup["players"]) - len(rnd["bid_done"])
    if missing:
        raise RuleError(N_("Not everyone has bid yet (%(missing)s to go)."), missing=missing)
    rnd["revealed"] = True
    rnd["bid_total"] = sum(rnd["bids"].values())


def _parse_results(setup: Setup, rnd: Mapping[str, Any], data: Mapping[str, Any],
                   bids: Bids) -> dict[str, Any]:
    """Validate a round's results across the table (docs/rules.md#skull-king-2021, "Checks
    a scorekeeper needs", and the table checks of docs/rules.md#skull-king-decisions) and
    return what the round then holds: ``results`` (normalised rows), ``final_bids``,
    ``points``, ``discarded`` and ``loot`` (the Loot pairs).

    Each player's tricks are 0..cards and the tricks add up to the cards dealt minus the
    tricks Kraken/White Whale discarded (one each, only when in play); with Graybeard's
    ghost (2 players, 2021) the players' tricks may add up to less. At most 3 standard
    14s, 1 black 14, 2 Mermaids (taken by Pirates or taking the Skull King), 1 Skull King
    taken; only one player captures with the Skull King, never in a round where it is
    taken by a Mermaid, and its one trick holds at most (players − 1) other cards. No
    capture without a trick won. Loot only with the Loot cards, as pairs (who played it,
    who captured it; :func:`_check_loot`); Harry's ±1 and the Rascal of Roatan's wager
    only with the abilities, one player each (a wager of 0 counts); Harry's changed bid
    stays within 0..cards (the original bid stays on record).

    A refusal names where it is: ``seat`` (the player's row) and ``at`` (the field:
    "won", "harry", "wager", "loot", "discarded") or ``counter`` (a bonus counter).
    """
    cards = rnd["cards"]
    pairs_given = "loot" in data
    parsed = _parse_rows(setup, cards, data.get("results"), pairs_given)
    discarded = _check_discarded(setup, cards, data.get("discarded", 0))
    _check_tricks(setup, parsed, cards - discarded)
    pairs = _check_loot(setup, parsed, data["loot"]) if pairs_given else []
    _check_table_counters(setup, parsed)
    final_bids = _final_bids(cards, parsed, bids)
    paid = loot_paid(pairs, parsed, final_bids, bool(setup.get("missed_bonuses")))
    points, inputs = _score_rows(setup, cards, parsed, bids, final_bids, paid,
                                 rnd.get("adjust", {}))
    return {"results": parsed, "final_bids": final_bids, "points": points,
            "inputs": inputs, "discarded": discarded,
            "loot": [list(pair) for pair in pairs]}


def _parse_rows(setup: Setup, cards: int, results: object, pairs_given: bool
                ) -> dict[str, dict[str, Any]]:
    """Every player's results, each checked on its own: {str(seat): row}."""
    if not isinstance(results, dict):
        raise RuleError(N_("Results are missing."))
    parsed = {}
    for key, entry in results.items():
        seat = _seat_key(setup, key)
        parsed[str(seat)] = _parse_row(setup, cards, seat, entry, pairs_given)
    if len(parsed) != len(setup["players"]):
        raise RuleError(N_("Every player needs a result."))
    return parsed


def _parse_row(setup: Setup, cards: int, seat: int, entry: object, pairs_given: bool
               ) -> dict[str, Any]:
    """One player's results: tricks won 0..cards, whole counters, Harry's −1/0/+1 and the
    Rascal of Roatan's wager only with the pirate abilities (docs/rules.md#skull-king-2021).
    A Loot count in a row is what older logs hold; a result that names its Loot pairs
    takes none."""
    if not isinstance(entry, dict):
        raise RuleError(N_("Results are missing."), seat=seat)
    stray = sorted(set(entry) - set(RESULT_KEYS))
    if stray:
        raise RuleError(N_("Unknown field: %(field)s."), field=stray[0], seat=seat)
    won = entry.get("won")
    if not is_int(won) or not 0 <= won <= cards:
        raise RuleError(N_("Tricks won must be between 0 and %(cards)s."), cards=cards,
                        seat=seat, at="won")
    row: dict[str, Any] = {"won": won}
    for name in COUNTERS:
        row[name] = count_of(entry.get(name, 0), name, seat=seat)
    row["harry"] = _check_harry(setup, entry.get("harry", 0), seat)
    if "wager" in entry:
        row["wager"] = _check_wager(setup, entry["wager"], seat)
    if row["loot"] and pairs_given:
        raise RuleError(N_("Loot is recorded as pairs: who played it and who captured it."),
                        seat=seat, at="loot")
    if row["loot"] and not setup["loot"]:
        raise RuleError(N_("Loot is not in play."), seat=seat, at="loot")
    return row


def _check_harry(setup: Setup, harry: object, seat: int) -> int:
    """Harry the Giant moves his player's bid by −1, 0 or +1, only with the pirate
    abilities (docs/rules.md#skull-king-2021)."""
    if not is_int(harry) or harry not in (-1, 0, 1):
        raise RuleError(N_("Harry the Giant changes a bid by −1, 0 or +1."), seat=seat,
                        at="harry")
    if harry and not setup["abilities"]:
        raise RuleError(N_("Harry the Giant needs the pirate abilities."), seat=seat,
                        at="harry")
    return harry


def _check_loot(setup: Setup, parsed: Mapping[str, Mapping[str, Any]], loot: object
                ) -> list[tuple[int, int]]:
    """The round's Loot as pairs (who played it, who captured it)
    (docs/rules.md#skull-king-2021, docs/rules.md#skull-king-decisions): only when Loot is
    in play, at most 2 (two Loot cards), each pair of two players of this game, and the
    captor won a trick (a Loot is captured in a trick won). A pair of one player with
    themselves is recorded and pays nothing."""
    if not isinstance(loot, list):
        raise RuleError(N_("Loot is recorded as pairs: who played it and who captured it."),
                        at="loot")
    if loot and not setup["loot"]:
        raise RuleError(N_("Loot is not in play."), at="loot")
    if len(loot) > MOST["loot"]:
        raise RuleError(TOO_MANY["loot"], at="loot")
    pairs = []
    for pair in loot:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or None in pair:
            raise RuleError(N_("A Loot needs both who played it and who captured it."),
                            at="loot")
        player, captor = _seat_key(setup, pair[0]), _seat_key(setup, pair[1])
        if parsed[str(captor)]["won"] == 0:
            raise RuleError(N_("Whoever captured a Loot won the trick it was in: this "
                               "player won no trick."), seat=captor, at="loot")
        pairs.append((player, captor))
    return pairs


def _check_discarded(setup: Setup, cards: int, discarded: object) -> int:
    """Tricks discarded by the Kraken and the White Whale (docs/rules.md#skull-king-2021):
    one each, only when in play (docs/rules.md#skull-king-decisions), never more than the
    cards dealt. Returns the count."""
    if not is_int(discarded) or discarded < 0:
        raise RuleError(N_("Discarded tricks cannot be negative."), at="discarded")
    most_discarded = int(setup["kraken"]) + int(setup["white_whale"])
    if discarded > most_discarded:
        if most_discarded == 0:
            raise RuleError(N_("Only the Kraken or the White Whale can discard a trick."),
                            at="discarded")
        raise RuleError(N_("Too many discarded tricks: at most %(most)s."),
                        most=most_discarded, at="discarded")
    if discarded > cards:
        raise RuleError(N_("Too many discarded tricks: at most %(most)s."), most=cards,
                        at="discarded")
    return discarded


def _check_tricks(setup: Setup, parsed: Mapping[str, Mapping[str, Any]], played: int) -> None:
    """The tricks won add up to the tricks ``played`` (at most that with Graybeard's
    ghost, who may win some) (docs/rules.md#skull-king-2021)."""
    tricks = sum(row["won"] for row in parsed.values())
    if setup["ghost"]:
        if tricks > played:
            raise RuleError(N_("The tricks won add up to %(tricks)s, more than %(played)s."),
                            tricks=tricks, played=played, at="won")
    elif tricks != played:
        raise RuleError(N_("The tricks won add up to %(tricks)s, not %(played)s."),
                        tricks=tricks, played=played, at="won")


def _check_table_counters(setup: Setup, parsed: Mapping[str, Mapping[str, Any]]) -> None:
    """The counters across the table fit the deck: 3 standard 14s, 1 black 14, 2 Mermaids,
    1 Skull King (captured, or capturing for one player only and at most one card of
    every other hand), 2 Loot cards paying at most 4 players (older logs' Loot counts),
    one Harry the Giant (docs/rules.md#skull-king-2021, docs/rules.md#skull-king-decisions)."""

    def total(name: str) -> int:
        return sum(row[name] for row in parsed.values())

    for name in ("fourteens", "black_fourteen", "skull_king_by_mermaid"):
        if total(name) > MOST[name]:
            raise RuleError(TOO_MANY[name], counter=name)
    if total("mermaids_by_pirate") + total("skull_king_by_mermaid") > 2:
        raise RuleError(TOO_MANY["mermaids_by_pirate"], counter="mermaids_by_pirate")
    if total("loot") > 4:
        raise RuleError(N_("Two Loot cards pay at most 4 players."), at="loot")
    captors = [key for key, row in parsed.items() if row["pirates_by_skull_king"]]
    if len(captors) > 1:
        raise RuleError(N_("Only one player can capture with the one Skull King."),
                        counter="pirates_by_skull_king", seat=int(captors[-1]))
    if captors and total("skull_king_by_mermaid"):
        raise RuleError(N_("There is one Skull King: it cannot both capture and be captured."),
                        counter="skull_king_by_mermaid")
    others = len(setup["players"]) - 1 + int(setup["ghost"])
    if captors and parsed[captors[0]]["pirates_by_skull_king"] > others:
        raise RuleError(N_("The Skull King's trick holds at most %(most)s Pirates here."),
                        most=others, counter="pirates_by_skull_king", seat=int(captors[0]))
    harrys = [key for key, row in parsed.items() if row["harry"]]
    if len(harrys) > 1:
        raise RuleError(N_("Only one player can play Harry the Giant."), seat=int(harrys[-1]),
                        at="harry")


def _final_bids(cards: int, parsed: Mapping[str, Mapping[str, Any]], bids: Bids
                ) -> dict[str, int]:
    """Each bid as scored: moved by Harry the Giant, within 0..cards
    (docs/rules.md#skull-king-2021)."""
    final_bids = {}
    for key, row in parsed.items():
        final = bids[key][0] + row["harry"]
        if not 0 <= final <= cards:
            raise RuleError(N_("Harry the Giant cannot move a bid outside 0 to %(cards)s."),
                            cards=cards, seat=int(key), at="harry")
        final_bids[key] = final
    return final_bids


def _score_rows(setup: Setup, cards: int, parsed: Mapping[str, Mapping[str, Any]],
                bids: Bids, final_bids: Mapping[str, int], paid: Mapping[str, int],
                adjust: Mapping[str, Mapping[str, Any]]
                ) -> tuple[dict[str, int], dict[str, dict[str, Any]]]:
    """Each player's points by :func:`round_score`, with the Loot alliances that paid,
    the round's one Rascal of Roatan wager (recorded with the results, or with the bid in
    older logs; a wager of 0 is a wager) (docs/rules.md#skull-king-2021), and the house
    rules: bonuses on a missed bid, and the player's adjustment of this round
    (docs/rules.md#skull-king-house-rules). Returns (points, the scorer's arguments per
    player but the adjustment), so a later adjustment scores the round again."""
    wagers = {key: row.get("wager", bids[key][2]) for key, row in parsed.items()}
    wagering = [int(key) for key, wager in wagers.items() if wager is not None]
    if len(wagering) > 1:
        raise RuleError(N_("Only one player can wager with the Rascal of Roatan."),
                        seat=wagering[-1], at="wager")
    points = {}
    inputs = {}
    for key, row in parsed.items():
        counts = {name: row[name] for name in COUNTERS}
        counts["loot"] += paid[key]
        inputs[key] = {"cards": cards, "bid": final_bids[key], "won": row["won"],
                       "edition": setup["edition"], "scoring": setup["scoring"],
                       "shot": bids[key][1], "wager": wagers[key],
                       "missed_bonuses": bool(setup.get("missed_bonuses")), **counts}
        amount = adjust[key]["amount"] if key in adjust else 0
        try:
            points[key] = round_score(**inputs[key], adjustment=amount)
        except RuleError as err:
            raise RuleError(err.message, **{**err.params, "seat": int(key)}) from None
    return points, inputs


def _on_result(setup: Setup, state: State, event: Event) -> None:
    """The tricks and bonuses of the current round, only after the reveal; the round is
    scored (docs/rules.md#skull-king-scoring, docs/rules.md#skull-king-2021) and the next
    round starts (or the game ends after the last)."""
    data = event["data"]
    rnd = _round_for(state, data)
    if state["finished"] or rnd["number"] != state["current"] + 1:
        raise RuleError(N_("Round %(round)s is not the round being played."),
                        round=rnd["number"])
    if not rnd["revealed"]:
        raise RuleError(N_("Reveal the bids before recording the tricks."))
    stray = sorted(set(data) - {"round", "results", "discarded", "loot"})
    if stray:
        raise RuleError(N_("Unknown field: %(field)s."), field=stray[0])
    bids = {key: (rnd["bids"][key], rnd["shots"][key], rnd["wagers"][key])
            for key in rnd["bids"]}
    rnd.update(_parse_results(setup, rnd, data, bids))
    if state["current"] + 1 == len(state["rounds"]):
        state["current"] = None
        state["finished"] = True
    else:
        state["current"] += 1


def _on_correct(setup: Setup, state: State, event: Event) -> None:
    """Reopen a scored round and replace its bids and results; every later total is
    recomputed. ``bids`` values are a bid, or ``{"bid", "shot", "wager"}``; a plain bid
    keeps the shot (and an older log's wager) on record for that seat."""
    data = event["data"]
    rnd = _round_for(state, data)
    if rnd["results"] is None:
        raise RuleError(N_("Round %(round)s has not been scored yet."), round=rnd["number"])
    stray = sorted(set(data) - {"round", "bids", "results", "discarded", "loot"})
    if stray:
        raise RuleError(N_("Unknown field: %(field)s."), field=stray[0])
    bids = _corrected_bids(setup, rnd, data.get("bids"))
    scored = _parse_results(setup, rnd, data, bids)
    order = [str(seat) for seat in setup["players"]]
    rnd.update(
        bids={key: bids[key][0] for key in order},
        shots={key: bids[key][1] for key in order},
        wagers={key: bids[key][2] for key in order},
        bid_total=sum(bids[key][0] for key in order),
        corrected=True, **scored,
    )


def _corrected_bids(setup: Setup, rnd: Mapping[str, Any], new_bids: object) -> Bids:
    """Every player's corrected bid, each a bid (keeping the shot and wager on record) or
    ``{"bid", "shot", "wager"}``, checked as a bid is."""
    if not isinstance(new_bids, dict):
        raise RuleError(N_("Every player needs a bid."))
    bids: Bids = {}
    for key, value in new_bids.items():
        seat = _seat_key(setup, key)
        shot, wager = rnd["shots"].get(str(seat)), rnd["wagers"].get(str(seat))
        if isinstance(value, dict):
            stray = sorted(set(value) - {"bid", "shot", "wager"})
            if stray:
                raise RuleError(N_("Unknown field: %(field)s."), field=stray[0], seat=seat)
            bid, shot, wager = value.get("bid"), value.get("shot"), value.get("wager")
        else:
            bid = value
        bids[str(seat)] = _check_bid(setup, rnd, seat, bid, shot, wager)
    if len(bids) != len(setup["players"]):
        raise RuleError(N_("Every player needs a bid."))
    return bids


def check_reason(reason: object) -> str:
    """An adjustment's reason: text of 1 to :data:`REASON_LENGTH` characters once
    trimmed, with no control or invisible formatting characters (it is shown in the
    history and the export) (docs/rules.md#skull-king-house-rules)."""
    if not isinstance(reason, str) or not reason.strip():
        raise RuleError(N_("Give the adjustment a short reason."), at="reason")
    reason = reason.strip()
    if len(reason) > REASON_LENGTH:
        raise RuleError(N_("The reason is too long: at most %(most)s characters."),
                        most=REASON_LENGTH, at="reason")
    if any(unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") for char in reason):
        raise RuleError(N_("The reason holds a character that cannot be shown."),
                        at="reason")
    return reason


def _on_adjust(setup: Setup, state: State, event: Event) -> None:
    """The house rule "adjustments" (docs/rules.md#skull-king-house-rules): a whole
    number of points, ±MOST_ADJUSTMENT, for one player in one scored round, with a short
    reason. One per player and round: a later one replaces it, 0 takes it back. The round
    is scored again by :func:`round_score` with it, so every later total moves."""
    if not setup.get("adjustments"):
        raise RuleError(N_("This game is played without adjustments."))
    data = event["data"]
    stray = sorted(set(data) - {"round", "seat", "amount", "reason"})
    if stray:
        raise RuleError(N_("Unknown field: %(field)s."), field=stray[0])
    rnd = _round_for(state, data)
    if rnd["results"] is None:
        raise RuleError(N_("Round %(round)s has not been scored yet."), round=rnd["number"],
                        at="round")
    seat = data.get("seat")
    if not is_int(seat) or seat not in setup["players"]:
        raise RuleError(N_("That seat is not in this game."), at="seat")
    amount = data.get("amount")
    if not is_int(amount) or not -MOST_ADJUSTMENT <= amount <= MOST_ADJUSTMENT:
        raise RuleError(N_("An adjustment is a whole number from −%(most)s to +%(most)s."),
                        most=MOST_ADJUSTMENT, at="amount")
    reason = check_reason(data.get("reason"))
    key = str(seat)
    if amount:
        rnd["adjust"][key] = {"amount": amount, "reason": reason}
    else:
        rnd["adjust"].pop(key, None)
    rnd["points"][key] = round_score(**rnd["inputs"][key], adjustment=amount)


HANDLERS: dict[str, Handler] = {"bid": _on_bid, "reveal_bids": _on_reveal,
                                "result": _on_result, "correct": _on_correct,
                                "adjust": _on_adjust}


def ranks(totals: Mapping[str, int]) -> dict[str, int]:
    """Shared (competition) ranks, 1-based: totals 50, 50, 20 rank 1, 1, 3
    (docs/rules.md#ranking, the one rule of every game)."""
    places = competition_ranks({int(key): value for key, value in totals.items()})
    return {str(seat): place for seat, place in places.items()}


def replay(setup: Setup, events: Iterable[Event]) -> State:
    """Fold the events into the game's state (docs/rules.md#skull-king); raise RuleError on
    the first event the rules forbid.

    State: ``players``, ``edition``, ``scoring``, ``way``, ``ghost``, ``capped``, the
    options; ``rounds`` (every round of the way to play, each with ``number``, ``cards``,
    ``dealer``, ``lead``, ``bids`` {str(seat): bid} — always present, the view hides them
    before the reveal —, ``bid_done`` [seats], ``shots``, ``wagers``, ``revealed``,
    ``bid_total`` (after the reveal), ``results`` {str(seat): counters} or None,
    ``discarded``, ``final_bids`` (after Harry), ``points`` (with the adjustments) and
    ``totals`` {str(seat): int} or None, ``inputs`` (the scorer's arguments per player
    but the adjustment), ``adjust`` {str(seat): {"amount", "reason"}} (the house rule's
    adjustments), ``corrected``); ``house_rules`` [names]; ``current`` (index of the
    current round, None when finished), ``round`` (its number), ``phase`` ("bidding",
    "tricks" or "finished"), ``cards`` and ``bid_total`` of the current round, ``totals``
    and ``ranks`` {str(seat): int}, ``leader`` [seats] (empty before any round is
    scored), ``finished``.
    """
    return replayed(setup, events, begin, step, conclude)


def step(setup: Setup, state: State, event: Event) -> None:
    """Fold one event into a state from :func:`begin` (``replay``'s loop, one turn);
    RuleError if the rules forbid it."""
    kind = event.get("type")
    if kind not in HANDLERS:
        raise RuleError(N_("Unknown event: %(type)s."), type=str(kind))
    _check_envelope(kind, event)
    HANDLERS[kind](setup, state, event)


def begin(setup: Setup) -> State:
    """The game before any event: the options, every round unplayed, round 1 current."""
    return {
        "players": list(setup["players"]),
        "edition": setup["edition"],
        "scoring": setup["scoring"],
        "way": setup["way"],
        "ghost": setup["ghost"],
        "capped": setup["capped"],
        "max_cards": setup["max_cards"],
        "loot": setup["loot"],
        "kraken": setup["kraken"],
        "white_whale": setup["white_whale"],
        "abilities": setup["abilities"],
        "house_rules": house_rules(setup),
        "rounds": [_new_round(setup, i) for i in range(len(setup["rounds"]))],
        "current": 0,
        "finished": False,
    }


def _check_envelope(kind: str, event: Event) -> None:
    """Only a bid may come from a phone (docs/rules.md#event-log), and every event carries
    a data dict."""
    if event.get("seat") is not None and kind not in SEAT_EVENTS:
        raise RuleError(N_("Only the host can record that."))
    if not isinstance(event.get("data"), dict):
        raise RuleError(N_("The event has no data."))


def conclude(setup: Setup, state: State) -> State:
    """After the last event: running totals per scored round, the game's totals, ranks
    and leaders, and the phase, round, cards and bid total of the current round (the
    total only once the bids are revealed, docs/rules.md#skull-king-decisions). Written
    into ``state`` and returned: a concluded state is read, never stepped again."""
    running = {str(seat): 0 for seat in setup["players"]}
    scored = False
    for rnd in state["rounds"]:
        if rnd["points"] is None:
            continue
        scored = True
        running = {key: running[key] + rnd["points"][key] for key in running}
        rnd["totals"] = dict(running)
    state["totals"] = running
    state["ranks"] = ranks(running)
    best = max(running.values())
    state["leader"] = [s for s in setup["players"] if running[str(s)] == best] if scored else []
    if state["finished"]:
        state.update(phase="finished", round=None, cards=None, bid_total=None)
    else:
        rnd = state["rounds"][state["current"]]
        state.update(phase="tricks" if rnd["revealed"] else "bidding", round=rnd["number"],
                     cards=rnd["cards"], bid_total=rnd["bid_total"])
    return state


def describe(event: Event) -> tuple[str, dict[str, Any]]:
    """A history line ``(N_(message), params)``. ``player`` in the params is a seat number
    (the view shows that player's name). Never a bid's value: it is secret until revealed."""
    data = event.get("data") or {}
    kind = event.get("type")
    if kind == "bid":
        return N_("%(player)s bid in round %(round)s"), {"player": data.get("seat"),
                                                         "round": data.get("round")}
    if kind == "reveal_bids":
        return N_("Bids revealed for round %(round)s"), {"round": data.get("round")}
    if kind == "result":
        return N_("Round %(round)s scored"), {"round": data.get("round")}
    if kind == "correct":
        return N_("Round %(round)s corrected"), {"round": data.get("round")}
    if kind == "adjust":
        amount = data.get("amount")
        params = {"player": data.get("seat"), "round": data.get("round"),
                  "reason": str(data.get("reason", ""))}
        if not amount:
            return N_("%(player)s's adjustment in round %(round)s taken back (%(reason)s)"), \
                params
        return N_("%(player)s adjusted %(amount)s points in round %(round)s: %(reason)s"), \
            {**params, "amount": signed(amount)}
    return N_("%(type)s"), {"type": str(kind)}


def signed(amount: object) -> str:
    """A number of points with its sign, as the score table shows them: +10, −20, 0."""
    if not is_int(amount):
        return str(amount)
    return f"+{amount}" if amount > 0 else f"−{-amount}" if amount < 0 else "0"


def next_step(setup: Setup, state: State) -> tuple[str, dict[str, Any]]:
    """What the table does next, as (N_(message), params) with players as lists of seats
    (docs/rules.md#skull-king): while bidding, who deals and who has not bid yet (never
    a bid: they are secret until "Yo-ho-ho!"), then the call itself once all are in;
    after it, who leads the first trick; at the end, who won."""
    if state["finished"]:
        return N_("Game over: %(seats)s won"), {"seats": list(state["leader"])}
    rnd = state["rounds"][state["current"]]
    if rnd["revealed"]:
        return N_("Round %(round)s: %(lead)s leads the first trick"), {
            "round": rnd["number"], "lead": [rnd["lead"]]}
    waiting = [s for s in setup["players"] if s not in rnd["bid_done"]]
    if not waiting:
        return N_("Round %(round)s: everyone has bid · “Yo-ho-ho!”"), {
            "round": rnd["number"]}
    return N_("Round %(round)s: %(dealer)s deals %(cards)s each · waiting for %(seats)s "
              "to bid"), {"round": rnd["number"], "dealer": [rnd["dealer"]],
                          "cards": rnd["cards"], "seats": waiting}
