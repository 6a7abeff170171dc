"""Skull King after the last round: a game's result, tonight's totals, statistics and
what an export may carry. Pure functions: no Flask, no SQL."""

import json
from collections.abc import Callable
from typing import Any

from companion.core.awards import Award, award, leaders
from companion.core.charts import score_bars
from companion.core.errors import N_
from companion.core.registry import SetupMismatch
from companion.skullking.setup import CUSTOM, HOUSE_RULES, house_rules, start

#: The options a setup was started with (read back from it for an import).
OPTION_KEYS = ("edition", "scoring", "way", "loot", "kraken", "white_whale", "abilities",
               "first_dealer", *HOUSE_RULES)
#: Skull King on BoardGameGeek: boardgamegeek.com/boardgame/150145 (docs/bgstats.md).
BGG_ID = 150145
EDITION_LABELS = {"classic": N_("Classic edition"), "2021": N_("2021 edition")}
SCORING_LABELS = {"skull_king": N_("Skull King scoring"), "rascal": N_("Rascal's scoring")}
#: The house rules as the screens, the history and BG Stats' board name them
#: (docs/rules.md#skull-king-house-rules).
HOUSE_RULE_LABELS = {"missed_bonuses": N_("Bonuses count on a missed bid"),
                     "adjustments": N_("Adjustments")}


def _seat_map(mapping: dict[str, Any]) -> dict[int, Any]:
    return {int(key): value for key, value in mapping.items()}


def result(setup: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """A finished game: the final totals, the shared ranks (1,1,3) and the players in
    first place (docs/rules.md#skull-king-scoring)."""
    places = _seat_map(state["ranks"])
    return {"scores": _seat_map(state["totals"]), "places": places,
            "winners": [s for s in setup["players"] if places[s] == 1]}


def night_tally(games: list[dict[str, Any]], results: list[dict[str, Any]],
                names: dict[int, str]) -> dict[str, Any] | None:
    """Tonight's finished Skull King games: totals, places and a chart each."""
    finished = [r for r in results if r["finished"]]
    if not finished:
        return None
    return {"player_columns": [],
            "games": [{"number": r["number"], "scores": r["scores"], "places": r["places"],
                       "winners": r["winners"],
                       "chart": score_bars(r["scores"], names, r["winners"])}
                      for r in finished]}


def stat_parts(play: dict[str, Any]) -> dict[str, Any]:
    """What one finished game adds to a player's statistics (companion/core/sums.py):
    its final total (summed and counted, and as a maximum) and its rounds' bids."""
    score = play["result"]["scores"][play["seat"]]
    mine = [rnd[play["seat"]] for rnd in bids_and_tricks(play["game"])]
    zeros = [won for bid, won in mine if bid == 0]
    return {"sums": {"score": score, "games": 1, "rounds": len(mine),
                     "exact": sum(bid == won for bid, won in mine),
                     "zero_rounds": len(zeros), "zero_hits": zeros.count(0)},
            "max": {"score": score}}


def stat_figures(parts: dict[str, Any]) -> dict[str, Any]:
    """A player's best final total and average (one decimal), None before a game; and
    over every round of their finished games, ``sk_exact`` (rounds whose bid was exact of
    rounds bid) and ``sk_zero`` (zero bids that took no trick of zero bids), each
    ``{"hits", "rounds"}`` (docs/rules.md#stat-exact-bids, docs/rules.md#stat-zero-bids).
    """
    sums = parts["sums"]
    games = sums.get("games", 0)
    return {"sk_best": parts["max"].get("score") if games else None,
            "sk_average": round(sums.get("score", 0) / games, 1) if games else None,
            "sk_exact": {"hits": sums.get("exact", 0), "rounds": sums.get("rounds", 0)},
            "sk_zero": {"hits": sums.get("zero_hits", 0),
                        "rounds": sums.get("zero_rounds", 0)}}


def running_parts(setup: dict[str, Any], state: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """What a game not finished adds to each player's statistics so far: the exact and
    zero bids of its rounds scored (docs/rules.md#stat-exact-bids): a round is scored
    only once its bids were revealed, so nothing here is secret. No total: a best or an
    average is of finished games."""
    found: dict[int, dict[str, Any]] = {seat: {} for seat in setup["players"]}
    for rnd in bids_and_tricks({"state": state}):
        for seat, (bid, won) in rnd.items():
            mine = found.setdefault(seat, {})
            for key, add in (("rounds", 1), ("exact", bid == won),
                             ("zero_rounds", bid == 0), ("zero_hits", bid == 0 and won == 0)):
                if add:
                    mine[key] = mine.get(key, 0) + int(add)
    return {seat: sums for seat, sums in found.items() if sums}


def bids_and_tricks(game: dict[str, Any]) -> list[dict[int, tuple[int, int]]]:
    """Each scored round of a game, in order: per seat (its bid as scored — after Harry
    the Giant's change —, the tricks it won) (docs/rules.md#stat-exact-bids). A round
    not scored yet gives nothing: its bids may still be secret."""
    rounds = []
    for rnd in game["state"]["rounds"]:
        if rnd["results"] is None:
            continue
        bids = rnd["final_bids"] or rnd["bids"]
        rounds.append({int(key): (bids[key], row["won"]) for key, row in rnd["results"].items()})
    return rounds


def longest_zero_run(rounds: list[dict[int, tuple[int, int]]], seat: int) -> int:
    """The most rounds in a row of one game in which ``seat`` bid 0 and took no trick
    (docs/rules.md#award-zero-streak)."""
    best = run = 0
    for rnd in rounds:
        run = run + 1 if rnd.get(seat) == (0, 0) else 0
        best = max(best, run)
    return best


def awards(games: list[dict[str, Any]], names: dict[int, str]) -> list[Award]:
    """Tonight's Skull King awards from its finished games: the Sharpshooter (most exact
    bids, docs/rules.md#award-sharpshooter) and the Perfect zero streak (the longest run
    of zero bids that took no trick, at least 2: docs/rules.md#award-zero-streak)."""
    seats = sorted({seat for game in games for seat in game["setup"]["players"]})
    rounds = [bids_and_tricks(game) for game in games]
    exact = {seat: sum(rnd[seat][0] == rnd[seat][1] for one in rounds for rnd in one
                       if seat in rnd) for seat in seats}
    zero = {seat: max(longest_zero_run(one, seat) for one in rounds) for seat in seats}
    sharp = leaders(exact, at_least=1)
    streak = leaders(zero, at_least=2)
    return [
        *award("sharpshooter", N_("Sharpshooter"), N_("Most exact bids: %(count)s"), sharp,
               count=exact[sharp[0]] if sharp else 0),
        *award("zero-streak", N_("Perfect zero streak"),
               N_("Bid 0 and took no trick, rounds in a row: %(count)s"), streak,
               count=zero[streak[0]] if streak else 0),
    ]


def standings(setup: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """A running game's standing (docs/rules.md#standings): the round being played and
    each player's total over the rounds scored so far. A round is scored only once its
    bids are revealed, so no total holds a bid still secret; before the first round is
    scored there is no total to show."""
    scored = any(rnd["points"] is not None for rnd in state["rounds"])
    return {"progress": (N_("Round %(r)s of %(n)s"),
                         {"r": state["round"], "n": len(state["rounds"])}),
            "label": N_("Points"), "highest_wins": True,
            "scores": _seat_map(state["totals"]) if scored else {}}


def mask(setup: dict[str, Any], events: list[dict[str, Any]], state: dict[str, Any]
         ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A running game leaves without the bids not yet revealed: each such bid becomes 0,
    with no shot and no wager (docs/rules.md#skull-king-decisions)."""
    setup, events = json.loads(json.dumps(setup)), json.loads(json.dumps(events))
    hidden = {r["number"] for r in state["rounds"] if not r["revealed"]}
    for event in events:
        data = event["data"]
        if event["type"] == "bid" and isinstance(data, dict) and data.get("round") in hidden:
            data["bid"] = 0
            for key in ("shot", "wager"):
                if key in data:
                    data[key] = None
    return setup, events


def options(setup: dict[str, Any]) -> dict[str, Any]:
    found = {key: setup.get(key) for key in OPTION_KEYS}
    if setup.get("way") == CUSTOM:
        found["rounds"] = setup.get("rounds")
    return found


def restore(setup: dict[str, Any], players: list[int], rng: Any) -> dict[str, Any]:
    """The setup an imported game stands for: the one the rules make from its options,
    or, for a game started before the advanced cards counted in the deck
    (docs/rules.md#skull-king-deck-rulings: 8 players with Loot, say, then got 8 cards
    in rounds 9 and 10, now 9), the one they made then, so an older export imports as it
    was played. Anything else is refused (registry.SetupMismatch)."""
    del rng  # nothing in a Skull King setup is random
    for counted in (True, False):
        fresh = start(players, options(setup), advanced_in_deck=counted)
        if fresh == setup:
            return fresh
    raise SetupMismatch()


def bgstats(setup: dict[str, Any], state: dict[str, Any], result: dict[str, Any],
            gettext: Callable[[str], str]) -> dict[str, Any]:
    """A finished game's part of its BG Stats play (docs/bgstats.md#skull-king): the
    highest total wins; ``board`` names the edition, the scoring and the house rules
    (docs/rules.md#skull-king-house-rules); each player's final
    total (no ``rank``: the places are the totals' competition ranks, 1, 1, 3,
    docs/rules.md#ranking, which BG Stats works out from the scores itself, and six
    ranks cost a QR code 100 bytes); the first round's lead
    player is the start player, ``startPlayer`` false for everyone else (BG Stats
    refuses a player without it)."""
    board = " · ".join((gettext(EDITION_LABELS[setup["edition"]]),
                        gettext(SCORING_LABELS[setup["scoring"]]),
                        *(gettext(HOUSE_RULE_LABELS[name])
                          for name in house_rules(setup))))
    lead = state["rounds"][0]["lead"] if state["rounds"] else None
    return {"game": {"bggId": BGG_ID, "highestWins": True, "noPoints": False},
            "board": board,
            "players": {seat: {"score": result["scores"][seat],
                               "startPlayer": seat == lead}
                        for seat in setup["players"]}}
