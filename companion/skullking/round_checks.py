"""Validating a round's results across the table before it is scored: each player's
tricks and bonus counters, Harry the Giant, the Rascal of Roatan's wager, the Loot pairs,
the tricks discarded and what the deck allows (docs/rules.md#skull-king-2021, "Checks a
scorekeeper needs", and docs/rules.md#skull-king-decisions). Pure: no Flask, no SQL.
:func:`parse_results` is the way in; the event handlers in companion/skullking/rules.py
call it for a round's results and for a correction."""

from collections.abc import Mapping
from typing import Any

from companion.core.errors import N_, RuleError
from companion.skullking.scoring import (
    MOST,
    TOO_MANY,
    WAGERS,
    count_of,
    is_int,
    loot_paid,
    round_score,
)
from companion.skullking.setup import Setup

COUNTERS = tuple(MOST)


RESULT_KEYS = ("won", *COUNTERS, "harry", "wager")


#: A seat's bid, shot and wager: {str(seat): (bid, shot, wager)}.
Bids = dict[str, tuple[int, str | None, int | None]]


def seat_key(setup: Setup, key: object) -> int:
    """A results/bids key: ``str(seat)`` of a player in this game."""
    if isinstance(key, str) and key.lstrip("-").isdigit() and int(key) in setup["players"]:
        return int(key)
    if is_int(key) and key in setup["players"]:
        return key
    raise RuleError(N_("That seat is not in this game."))


def check_wager(setup: Setup, wager: object, seat: int) -> int | None:
    """A wager is None, or 0, 10 or 20 with the pirate abilities (Rascal of Roatan,
    docs/rules.md#skull-king-2021)."""
    if wager is None:
        return None
    if not setup["abilities"]:
        raise RuleError(N_("A wager needs the pirate abilities."), seat=seat, at="wager")
    if not is_int(wager) or wager not in WAGERS:
        raise RuleError(N_("A wager is 0, 10 or 20."), seat=seat, at="wager")
    return wager


def parse_results(setup: Setup, rnd: Mapping[str, Any], data: Mapping[str, Any],
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
        seat = seat_key(setup, key)
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
        row["wager"] = check_wager(setup, entry["wager"], seat)
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
        player, captor = seat_key(setup, pair[0]), seat_key(setup, pair[1])
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
