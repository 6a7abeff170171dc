"""Crazy Time after match 4: a game's result, tonight's standings, statistics and what
an export may carry. Pure functions: no Flask, no SQL."""

import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from companion.core.awards import Award, award, decimal, leaders
from companion.core.charts import score_bars
from companion.core.errors import N_
from companion.core.ranking import competition_ranks
from companion.crazytime import rules

#: What an exported running game shows instead of a law's When and What text.
MASK = "?"


def _seat_map(mapping: dict[str, Any]) -> dict[int, Any]:
    return {int(key): value for key, value in mapping.items()}


def places(standings: list[list[int]]) -> dict[int, int]:
    """Each player's place from the final standings (the rules' order, ties grouped),
    by the one ranking rule: 1, 1, 3, 4 (docs/rules.md#ranking)."""
    order = {seat: index for index, tied in enumerate(standings) for seat in tied}
    return competition_ranks(order, highest_wins=False)


def result(setup: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """A finished game: the standings (first place first, ties shared), each player's
    hours won in matches 1–3, penalties in match 4 and final score, and each match's
    winners (docs/rules.md#crazy-time-final-score)."""
    standings = [list(place) for place in state["standings"]]
    last = state["penalties"][str(len(state["match_results"]))]
    return {
        "scores": _seat_map(state["scores"]), "places": places(standings),
        "winners": list(standings[0]) if standings else [],
        "standings": standings, "hours": _seat_map(state["hours"]),
        "last_penalties": _seat_map(last),
        "matches": [{"match": m["match"], "winners": list(m["winners"]), "hours": m["hours"]}
                    for m in state["match_results"]],
    }


def night_tally(games: list[dict[str, Any]], results: list[dict[str, Any]],
                names: dict[int, str]) -> dict[str, Any] | None:
    """Tonight's finished Crazy Time games: hours, standings and a chart each."""
    keys = ("number", "hours", "last_penalties", "scores", "places", "standings",
            "winners", "matches")
    finished = [r for r in results if r["finished"]]
    if not finished:
        return None
    return {"player_columns": [], "games": [{**{k: r[k] for k in keys},
                       "chart": score_bars(r["scores"], names, r["winners"])}
                      for r in finished]}


def stat_parts(play: dict[str, Any]) -> dict[str, Any]:
    """What one finished game adds to a player's statistics (companion/core/sums.py):
    the matches of it they won."""
    return {"sums": {"matches_won": sum(1 for m in play["result"]["matches"]
                                        if play["seat"] in m["winners"])}}


def running_parts(setup: dict[str, Any], state: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """What a game not finished adds to each player's statistics so far: the matches of
    it they won (every screen shows who won a match; the laws stay out)."""
    found: dict[int, dict[str, Any]] = {}
    for match in state["match_results"]:
        for seat in match["winners"]:
            found.setdefault(int(seat), {"matches_won": 0})["matches_won"] += 1
    return found


def stat_figures(parts: dict[str, Any]) -> dict[str, Any]:
    """Matches a player won (the fewest penalties of the match) in finished games."""
    return {"ct_matches_won": parts["sums"].get("matches_won", 0)}


def penalties_taken(game: dict[str, Any]) -> dict[int, int]:
    """Each player's penalty tokens in all the matches of one game."""
    taken = dict.fromkeys(game["setup"]["players"], 0)
    for match in game["state"]["penalties"].values():
        for seat, count in match.items():
            taken[int(seat)] += count
    return taken


def awards(games: list[dict[str, Any]], names: dict[int, str]) -> list[Award]:
    """Tonight's Crazy Time award from its finished games: the Penalty dodger, who took
    the fewest penalty tokens per game played, all four matches counted
    (docs/rules.md#award-dodger)."""
    played: dict[int, int] = {}
    taken: dict[int, int] = {}
    for game in games:
        for seat, count in penalties_taken(game).items():
            played[seat] = played.get(seat, 0) + 1
            taken[seat] = taken.get(seat, 0) + count
    rates = {seat: Fraction(taken[seat], played[seat]) for seat in played}
    found = leaders(rates, most=False)
    return award("dodger", N_("Penalty dodger"), N_("Fewest penalties per game: %(rate)s"),
                 found, rate=decimal(rates[found[0]]) if found else "")


def standings(setup: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """A running game's standing (docs/rules.md#standings): the match being played and,
    in matches 1–3, the hours won so far (none before a match is won); in match 4 the
    score so far, hours minus the match's penalties, ranked as the final score is
    (a tie goes to fewer match-4 penalties). Laws are never part of it."""
    match = state["match"]
    hours = {int(seat): n for seat, n in state["hours"].items()}
    progress = (N_("Match %(m)s"), {"m": match})
    if match < rules.MATCHES:
        return {"progress": progress, "label": N_("Hours"), "highest_wins": True,
                "scores": hours if any(hours.values()) else {}}
    taken = {int(seat): n for seat, n in state["penalties"][str(match)].items()}
    places: dict[int, int] = {}
    for group in rules.final_ranking(hours, taken):
        places.update(dict.fromkeys(group, len(places) + 1))
    return {"progress": progress, "label": N_("Score"), "highest_wins": True,
            "scores": {seat: hours[seat] - taken[seat] for seat in hours}, "places": places}


def mask(setup: dict[str, Any], events: list[dict[str, Any]], state: dict[str, Any]
         ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A running game leaves with every law's name (public) but not its When and What
    text (docs/rules.md#crazy-time-matches: only those who know a law see its cards)."""
    setup, events = json.loads(json.dumps(setup)), json.loads(json.dumps(events))
    for event in events:
        if event["type"] == "law" and isinstance(event["data"], dict):
            for key in ("when", "what"):
                if key in event["data"]:
                    event["data"][key] = MASK
    return setup, events


def kept_state(setup: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """A finished game's state as it is kept beside its log for the tallies: every law
    keeps its name and who knew it, never its When and What text, which only those who
    knew the law ever see (docs/rules.md#crazy-time-matches), even after the game."""
    kept: dict[str, Any] = json.loads(json.dumps(state))
    for law in kept.get("laws", []):
        for key in ("when", "what"):
            if key in law:
                law[key] = MASK
    return kept


def options(setup: dict[str, Any]) -> dict[str, Any]:
    return {"side": setup.get("side"), "starting_law": setup.get("starting_law")}


def bgstats(setup: dict[str, Any], state: dict[str, Any], result: dict[str, Any],
            gettext: Callable[[str], str]) -> dict[str, Any]:
    """A finished game's part of its BG Stats play (docs/bgstats.md#crazy-time): the
    final score (hours minus match 4 penalties) with the highest winning, and each
    player's place by the rules' tie-break (docs/rules.md#crazy-time-final-score).
    The start player is the rabbit, the youngest, who starts every match
    (docs/rules.md#crazy-time-matches); nobody when the table never recorded it.
    No BoardGameGeek id: none could be checked (docs/bgstats.md)."""
    return {"game": {"highestWins": True, "noPoints": False},
            "players": {seat: {"score": result["scores"][seat],
                               "rank": result["places"][seat],
                               "startPlayer": seat == state.get("rabbit")}
                        for seat in setup["players"]}}
