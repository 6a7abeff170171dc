"""Skull King's scoring: what one player's round is worth, in both editions and both
scorings, with the house rules. Pure; every round the app scores goes through
:func:`round_score` (docs/rules.md#skull-king-scoring, #skull-king-2021 and
#skull-king-house-rules; the decisions where the rules are silent are listed in
companion/skullking/rules.py)."""

from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from companion.core.errors import N_, RuleError

EDITIONS = ("classic", "2021")


SCORINGS = ("skull_king", "rascal")


SHOTS = (None, "grapeshot", "cannonball")


WAGERS = (0, 10, 20)


#: Cards in the deck per edition (docs/rules.md#skull-king-cards,
#: docs/rules.md#skull-king-2021).
DECK = {"classic": 66, "2021": 70}


#: Bonus points per counter, per edition (docs/rules.md#skull-king-scoring;
#: docs/rules.md#skull-king-2021).
BONUS = {
    "classic": {"pirates_by_skull_king": 30, "skull_king_by_mermaid": 50},
    "2021": {
        "fourteens": 10,
        "black_fourteen": 20,
        "mermaids_by_pirate": 20,
        "pirates_by_skull_king": 30,
        "skull_king_by_mermaid": 40,
        "loot": 20,
    },
}


#: The most of each counter one player can have in a round: three standard 14s, one black
#: 14, two Mermaids, five Pirates plus Scary Mary / the Tigress, one Skull King, two Loot.
MOST = {
    "fourteens": 3,
    "black_fourteen": 1,
    "mermaids_by_pirate": 2,
    "pirates_by_skull_king": 6,
    "skull_king_by_mermaid": 1,
    "loot": 2,
}


#: What a person reads when a counter goes past what the deck holds.
TOO_MANY = {
    "fourteens": N_("There are only 3 standard 14s."),
    "black_fourteen": N_("There is only one black 14."),
    "mermaids_by_pirate": N_("There are only 2 Mermaids."),
    "pirates_by_skull_king": N_("There are only 6 Pirates, counting Scary Mary or the Tigress."),
    "skull_king_by_mermaid": N_("There is only one Skull King."),
    "loot": N_("There are only 2 Loot cards."),
}


#: Counters that are captures in a trick the player won (so they need a trick won).
CAPTURES = ("fourteens", "black_fourteen", "mermaids_by_pirate", "pirates_by_skull_king",
            "skull_king_by_mermaid")


#: The largest adjustment, either way, of one player in one round, and the longest
#: reason (docs/rules.md#skull-king-house-rules).
MOST_ADJUSTMENT = 200


def is_int(value: object) -> TypeGuard[int]:
    """A whole number (a bool is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def count_of(value: object, name: str, **params: Any) -> int:
    """A bonus counter: a whole number, 0 or more."""
    if not is_int(value) or value < 0:
        raise RuleError(N_("A count must be a whole number, 0 or more."), counter=name,
                        **params)
    return value


def round_score(*, cards: int, bid: int, won: int, edition: str = "2021",
                scoring: str = "skull_king", shot: str | None = None, fourteens: int = 0,
                black_fourteen: int = 0, mermaids_by_pirate: int = 0,
                pirates_by_skull_king: int = 0, skull_king_by_mermaid: int = 0, loot: int = 0,
                wager: int | None = None, missed_bonuses: bool = False,
                adjustment: int = 0) -> int:
    """One player's points for one round (docs/rules.md#skull-king-scoring,
    docs/rules.md#skull-king-2021; decisions: docs/rules.md#skull-king-decisions).

    Skull King scoring (both editions):
      * bid ≥ 1, exact: 20 × bid plus bonuses; missed: −10 × |bid − won|, no bonus;
      * bid 0: +10 × cards dealt if no trick was won, else −10 × cards dealt
        (plus bonuses on the exact bid 0, which can only be Loot).
    Bonuses, only on an exact bid — classic: +30 per Pirate taken by your Skull King
    (Scary Mary counts, even as an Escape), +50 for the Skull King taken by your Mermaid;
    2021: +10 per standard 14, +20 for the black 14, +20 per Mermaid taken by your Pirate,
    +30 per Pirate (or Tigress) taken by your Skull King, +40 for the Skull King taken by
    your Mermaid, +20 per Loot alliance that paid out.

    Rascal's scoring (2021 only): the potential is 10 × cards dealt; off by 0 ("direct
    hit") pays all of it, off by 1 ("glancing blow") half, off by 2 or more nothing. A bid
    of 0 is scored by the same formula on |bid − won| (decision: the rules are silent).
    Bonuses are scaled the same (decision): in full on a direct hit, halved on a glancing
    blow, none otherwise — except Loot, which docs/rules.md#skull-king-2021 pays only on
    an exact bid. Never negative. ``shot="cannonball"``: 15 × cards on an exact bid plus
    full bonuses, otherwise 0. ``shot="grapeshot"`` (or None) is the normal Rascal's
    scoring.

    Rascal of Roatan (2021 ability) ``wager`` of 0, 10 or 20: +wager on an exact bid,
    −wager otherwise (under Rascal's scoring an off-by-one loses it too). The wager is a
    side bet added after Rascal's "never negative" floor (decision), so it can make a
    round negative.

    House rules (docs/rules.md#skull-king-house-rules), both off by default:
    ``missed_bonuses=True`` pays the bonuses on a missed bid too (Skull King scoring
    only: missed by 2 with a Pirate taken by your Skull King is −20 + 30 = +10; a bid of
    0 with a trick taken, 5 cards, and a 14 is −50 + 10). The ``loot`` given is the Loot
    alliances that paid, which under this rule do not need exact bids
    (:func:`loot_paid`). ``adjustment``, a whole number within ±:data:`MOST_ADJUSTMENT`,
    is added last, after every other rule, and may make a round negative.

    Impossible input raises :class:`RuleError` (a ``ValueError``): an unknown edition,
    scoring or shot; Rascal's scoring with the classic edition; a shot under Skull King
    scoring; cards outside 1..deck/2; bid or won outside 0..cards; negative counters; more
    of a card than the deck holds (3 standard 14s, 1 black 14, 2 Mermaids, 6 Pirates with
    Scary Mary/Tigress, 1 Skull King, 2 Loot); a bonus the classic edition lacks (14s,
    Mermaids taken by Pirates, Loot, wagers); a capture with no trick won; capturing with
    the Skull King and capturing the Skull King in the same round; a wager not 0/10/20.
    """
    _check_scoring(edition, scoring, shot)
    _check_hand(cards, bid, won, edition)
    counts = {
        "fourteens": fourteens,
        "black_fourteen": black_fourteen,
        "mermaids_by_pirate": mermaids_by_pirate,
        "pirates_by_skull_king": pirates_by_skull_king,
        "skull_king_by_mermaid": skull_king_by_mermaid,
        "loot": loot,
    }
    _check_counters(counts, won, edition)
    _check_round_wager(wager, edition)
    _check_house_rules(scoring, missed_bonuses, adjustment)

    off = abs(bid - won)
    captures, looted = _bonuses(counts, edition)
    if scoring == "skull_king":
        points = _skull_king_points(cards, bid, off, captures + looted, missed_bonuses)
    else:
        points = _rascal_points(cards, off, shot, captures, looted)
    if wager:
        points += wager if off == 0 else -wager
    return points + adjustment


def _check_house_rules(scoring: str, missed_bonuses: object, adjustment: object) -> None:
    """The house rules' arguments (docs/rules.md#skull-king-house-rules): bonuses on a
    missed bid is yes or no, and Skull King scoring's only; an adjustment is a whole
    number within ±MOST_ADJUSTMENT."""
    if not isinstance(missed_bonuses, bool):
        raise RuleError(N_("The house rules are yes or no."))
    if missed_bonuses and scoring != "skull_king":
        raise RuleError(N_("“Bonuses count on a missed bid” is a house rule of Skull King "
                           "scoring: Rascal's scoring has its own rule for bonuses."))
    if not is_int(adjustment) or not -MOST_ADJUSTMENT <= adjustment <= MOST_ADJUSTMENT:
        raise RuleError(N_("An adjustment is a whole number from −%(most)s to +%(most)s."),
                        most=MOST_ADJUSTMENT, at="amount")


def _check_scoring(edition: str, scoring: str, shot: str | None) -> None:
    """The edition, scoring and shot exist, and go together: Rascal's scoring is 2021
    only, and a shot (Grapeshot/Cannonball) belongs to Rascal's scoring
    (docs/rules.md#skull-king-2021)."""
    if edition not in EDITIONS:
        raise RuleError(N_("Unknown edition: %(edition)s."), edition=str(edition))
    if scoring not in SCORINGS:
        raise RuleError(N_("Unknown scoring: %(scoring)s."), scoring=str(scoring))
    if shot not in SHOTS:
        raise RuleError(N_("Unknown shot: %(shot)s."), shot=str(shot))
    if scoring == "rascal" and edition == "classic":
        raise RuleError(N_("Rascal's scoring belongs to the 2021 edition."))
    if shot is not None and scoring != "rascal":
        raise RuleError(N_("Grapeshot and Cannonball belong to Rascal's scoring."))


def _check_hand(cards: int, bid: int, won: int, edition: str) -> None:
    """Cards dealt are 1..deck/2; the bid and the tricks won are 0..cards
    (docs/rules.md#skull-king-2021, "Checks a scorekeeper needs")."""
    most_cards = DECK[edition] // 2
    if not is_int(cards) or not 1 <= cards <= most_cards:
        raise RuleError(N_("A round deals between 1 and %(most)s cards."), most=most_cards)
    if not is_int(bid) or not 0 <= bid <= cards:
        raise RuleError(N_("A bid must be between 0 and %(cards)s."), cards=cards)
    if not is_int(won) or not 0 <= won <= cards:
        raise RuleError(N_("Tricks won must be between 0 and %(cards)s."), cards=cards)


def _check_counters(counts: Mapping[str, int], won: int, edition: str) -> None:
    """One player's bonus counters: whole numbers the edition scores, no more of a card
    than the deck holds, captures only with a trick won, and the one Skull King never
    both capturing and captured (docs/rules.md#skull-king-cards,
    docs/rules.md#skull-king-2021)."""
    for name, value in counts.items():
        count_of(value, name)
        if value and name not in BONUS[edition]:
            raise RuleError(N_("The classic box has no 14s, no bonus for Mermaids taken "
                               "by Pirates and no Loot. If your deck has them, your table "
                               "has the 2021 edition: start a new game in it."),
                            counter=name)
        if value > MOST[name]:
            raise RuleError(TOO_MANY[name], counter=name)
    if won == 0 and any(counts[name] for name in CAPTURES):
        raise RuleError(N_("A capture bonus needs a trick won."))
    if counts["pirates_by_skull_king"] and counts["skull_king_by_mermaid"]:
        raise RuleError(N_("There is one Skull King: it cannot both capture and be captured."))


def _check_round_wager(wager: int | None, edition: str) -> None:
    """The Rascal of Roatan wager (2021 only, docs/rules.md#skull-king-2021) is None, or
    0, 10 or 20."""
    if wager is None:
        return
    if edition == "classic":
        raise RuleError(N_("The classic edition has no Rascal of Roatan wager."))
    if not is_int(wager) or wager not in WAGERS:
        raise RuleError(N_("A wager is 0, 10 or 20."))


def _bonuses(counts: Mapping[str, int], edition: str) -> tuple[int, int]:
    """(capture bonus points, Loot points) the counters are worth in this edition
    (docs/rules.md#skull-king-scoring, docs/rules.md#skull-king-2021)."""
    captures = sum(counts[name] * BONUS[edition].get(name, 0) for name in CAPTURES)
    looted = counts["loot"] * BONUS[edition].get("loot", 0)
    return captures, looted


def _skull_king_points(cards: int, bid: int, off: int, bonus: int,
                       missed_bonuses: bool = False) -> int:
    """Skull King scoring (docs/rules.md#skull-king-scoring): an exact bid of b ≥ 1 pays
    20 × b plus ``bonus``, a missed one −10 per trick off; a bid of 0 pays ±10 × cards
    dealt (plus ``bonus`` when exact). With the house rule ``missed_bonuses``
    (docs/rules.md#skull-king-house-rules) a missed bid keeps its ``bonus`` too."""
    if off:
        return (-10 * cards if bid == 0 else -10 * off) + (bonus if missed_bonuses else 0)
    return (10 * cards if bid == 0 else 20 * bid) + bonus


def _rascal_points(cards: int, off: int, shot: str | None, captures: int,
                   looted: int) -> int:
    """Rascal's scoring (docs/rules.md#skull-king-2021, docs/rules.md#skull-king-decisions):
    10 × cards with full bonuses on a direct hit, half of it (never the Loot) on a
    glancing blow, nothing otherwise; a Cannonball pays 15 × cards plus the bonuses on a
    direct hit, else nothing."""
    if shot == "cannonball":
        return 15 * cards + captures + looted if off == 0 else 0
    if off == 0:
        return 10 * cards + captures + looted
    if off == 1:
        return (10 * cards + captures) // 2
    return 0


def loot_paid(pairs: Sequence[tuple[int, int]], parsed: Mapping[str, Mapping[str, Any]],
               final_bids: Mapping[str, int], missed_bonuses: bool = False
               ) -> dict[str, int]:
    """How many Loot alliances pay each player: a pair pays both its players only when
    both bid exactly, and never a player allied with themselves
    (docs/rules.md#skull-king-2021; Rascal's scoring included: never half). With the
    house rule "bonuses count on a missed bid" a pair pays whatever the two bid
    (docs/rules.md#skull-king-house-rules)."""
    exact = {key: missed_bonuses or final_bids[key] == row["won"]
             for key, row in parsed.items()}
    paid = dict.fromkeys(parsed, 0)
    for player, captor in pairs:
        if player != captor and exact[str(player)] and exact[str(captor)]:
            paid[str(player)] += 1
            paid[str(captor)] += 1
    return paid
