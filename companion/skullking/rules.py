"""Skull King as the scorekeeper's tablet knows it: pure functions, no Flask, no SQL.
This module holds the event handlers, the replay and the history's lines; the options a
game starts with are in companion/skullking/setup.py, and the checks of a round's
results in companion/skullking/round_checks.py.

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

import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from companion.core.errors import N_, RuleError
from companion.core.events import REDO, UNDO
from companion.core.ranking import competition_ranks
from companion.core.registry import replayed
from companion.skullking.round_checks import Bids, check_wager, parse_results, seat_key
from companion.skullking.score_table import signed
from companion.skullking.scoring import (
    MOST_ADJUSTMENT,
    SHOTS,
    is_int,
    round_score,
)
from companion.skullking.setup import Setup, house_rules

# The game contract (companion/core/registry.py, Rules) asks a rules module for ``start``:
# it lives with the options in setup.py, and is named here for the registry.
from companion.skullking.setup import start as start

# Bids one seat may record in a round (the first and its changes): the forms refuse more,
# so a log stays within what an export carries (companion/core/exchange.py MAX_EVENTS) at 8
# players and 20 rounds. Older logs with more still replay.
MOST_BIDS = 21


REASON_LENGTH = 40


HOST_EVENTS = frozenset({"bid", "reveal_bids", "result", "correct", "adjust"})


SEAT_EVENTS = frozenset({"bid"})


#: Events after which a bid or "Yo-ho-ho!" made from an older screen is stale: each one
#: moves the round on (or takes something back). Undo and redo are the log's own.
MOVES = frozenset({"reveal_bids", "result", "correct", UNDO, REDO})


#: The state ``replay`` folds, one event of the log: JSON.
State = dict[str, Any]


Event = Mapping[str, Any]


#: Applies one event to the state (``replay`` looks them up in :data:`HANDLERS`).
Handler = Callable[[Setup, State, Event], None]


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
    return bid, shot, check_wager(setup, wager, seat)


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
    rnd.update(parse_results(setup, rnd, data, bids))
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
    scored = parse_results(setup, rnd, data, bids)
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
        seat = seat_key(setup, key)
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


def moment(setup: Setup, state: State) -> str:
    """The moment of the game a line is drawn for (companion/core/registry.py):
    "bidding", "tricks" (the bids are out), "finished"; while the screens count to the
    bids, the lines held until the count's end say "yo-ho-ho" (:func:`before_reveal`)."""
    if state["finished"]:
        return "finished"
    return "tricks" if state["rounds"][state["current"]]["revealed"] else "bidding"


def before_reveal(setup: Setup, state: State) -> tuple[str, dict[str, Any]]:
    """What the table does while the screens count to the bids: the call itself, not yet
    who leads (that is said at the count's last word, with the bids)."""
    return N_("Round %(round)s: everyone has bid · “Yo-ho-ho!”"), {
        "round": state["rounds"][state["current"]]["number"]}


def next_step(setup: Setup, state: State) -> tuple[str, dict[str, Any]]:
    """What the table does next, as (N_(message), params) with players as lists of seats
    (docs/rules.md#skull-king): while bidding, who deals and who has not bid yet (never
    a bid: they are secret until "Yo-ho-ho!"), then the call itself once all are in;
    after it, who leads the first trick (and that each trick's winner leads the next,
    docs/rules.md#skull-king-tricks); at the end, who won."""
    if state["finished"]:
        return N_("Game over: %(seats)s won"), {"seats": list(state["leader"])}
    rnd = state["rounds"][state["current"]]
    if rnd["revealed"]:
        return N_("Round %(round)s: %(lead)s leads the first trick; the winner of each "
                  "trick leads the next"), {
            "round": rnd["number"], "lead": [rnd["lead"]]}
    waiting = [s for s in setup["players"] if s not in rnd["bid_done"]]
    if not waiting:
        return before_reveal(setup, state)
    return N_("Round %(round)s: %(dealer)s deals %(cards)s each · waiting for %(seats)s "
              "to bid"), {"round": rnd["number"], "dealer": [rnd["dealer"]],
                          "cards": rnd["cards"], "seats": waiting}
