"""Skull King's setup: the options a game is started with (edition, scoring, way to play,
the 2021 advanced cards, first dealer, house rules), the deck they make and the cards a
round may deal (docs/rules.md#skull-king, docs/rules.md#skull-king-2021,
docs/rules.md#skull-king-deck-rulings). Pure: no Flask, no SQL. The conventions and the
decisions where the rules are silent are listed once, in companion/skullking/rules.py."""

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from companion.core.errors import N_, RuleError
from companion.skullking.scoring import DECK, EDITIONS, SCORINGS, is_int

#: The 2021 advanced cards shuffled into the deck when in play, and how many of each:
#: with all of them the deck is 74 cards (docs/rules.md#skull-king-deck-rulings).
ADVANCED_CARDS = {"loot": 2, "kraken": 1, "white_whale": 1}


#: Players per edition: classic 2–6 (the seed), 2021 2–8.
PLAYERS = {"classic": (2, 6), "2021": (2, 8)}


#: No official way to play deals more than 10 cards a round.
MOST_CARDS = 10


#: A custom sequence has at least 1 and at most this many rounds.
MOST_ROUNDS = 20


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


ADVANCED = ("loot", "kraken", "white_whale", "abilities")


#: The house rules a game may be started with (docs/rules.md#skull-king-house-rules).
#: A setup holds each only when it is on, so a game started before they existed has
#: the very setup it had.
HOUSE_RULES = ("missed_bonuses", "adjustments")


OPTIONS = ("edition", "scoring", "way", "rounds", "loot", "kraken", "white_whale",
           "abilities", "first_dealer", *HOUSE_RULES)


#: The setup :func:`start` returns: JSON.
Setup = dict[str, Any]


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
