"""No Touch Kraken after the reveals: a game's result, the token series over a night,
statistics and what an export may carry. Pure functions: no Flask, no SQL.

A game here is a plain dict ``{"number", "kind", "setup", "state"}`` (the shape every
tally reads); players are seat numbers.
"""

import json
from collections.abc import Callable
from fractions import Fraction
from random import Random
from typing import Any

from companion.core.awards import Award, award, decimal, leaders
from companion.core.charts import bar_chart
from companion.core.errors import N_, RuleError
from companion.core.ranking import competition_ranks
from companion.core.registry import SetupMismatch
from companion.kraken import rules

KIND = "kraken"
OUTCOME_LABELS = {
    "explorers": N_("The Explorers won"),
    "skeletons": N_("The Skeletons won"),
    "nobody": N_("Nobody won"),
}
REASON_LABELS = {
    "all_treasure": N_("every treasure was found"),
    "kraken": N_("the Kraken was revealed"),
    "curse_first": N_("a Curse came before any Treasure"),
    "rounds_over": N_("the four rounds ran out"),
}
#: The setup's keys that hold the deal: secret while the game runs.
DEALT = ("roles", "unused_roles")

Game = dict[str, Any]


def _seat_map(mapping: dict[str, Any] | None) -> dict[int, Any]:
    return {int(key): value for key, value in (mapping or {}).items()}


def result(setup: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """A finished game: the winning team's seats, why it ended, and every role (revealed
    at the end, docs/rules.md#kraken-end). Winners share first place; the others share
    the next one, after them (docs/rules.md#ranking: 3 winners of 5, places 1, 1, 1, 4,
    4; when nobody wins, everybody shares one place)."""
    players = list(setup["players"])
    return {
        "winners": list(state["winners"]), "outcome": state["outcome"],
        "reason": state["reason"], "roles": _seat_map(state["roles"]),
        "places": competition_ranks({s: int(s in state["winners"]) for s in players}),
    }


def _series_id(game: Game) -> str | None:
    if game["kind"] != KIND:
        return None
    series: str | None = (game["setup"].get("options") or {}).get("series")
    return series


def series(games: list[Game]) -> list[dict[str, Any]]:
    """The token series among ``games`` (docs/rules.md#kraken-series).

    Kraken games that share ``setup["options"]["series"]`` form one series, in game order.
    Only finished games give tokens (``rules.series_tokens``); an unfinished one is
    listed in ``unfinished``. A finished game recorded after the series was already over
    gives no token and is listed in ``ignored``.

    Returns ``[{"id", "players", "games" [numbers counted], "unfinished" [numbers],
    "ignored" [numbers], "tokens" {seat: n}, "over", "winners"}]`` in order of each
    series' first game.
    """
    groups: dict[str, list[Game]] = {}
    for game in games:
        series_id = _series_id(game)
        if series_id is not None:
            groups.setdefault(series_id, []).append(game)
    return [_one_series(series_id, members) for series_id, members in groups.items()]


def _one_series(series_id: str, members: list[Game]) -> dict[str, Any]:
    players = sorted({s for g in members for s in g["setup"]["players"]})
    counted: list[int] = []
    unfinished: list[int] = []
    ignored: list[int] = []
    results: list[dict[str, Any]] = []
    for game in members:
        if not game["state"].get("finished"):
            unfinished.append(game["number"])
            continue
        outcome = {"losers": list(game["state"]["losers"])}
        try:
            rules.series_tokens(players, [*results, outcome])
        except RuleError:
            ignored.append(game["number"])
            continue
        results.append(outcome)
        counted.append(game["number"])
    tally = rules.series_tokens(players, results)
    return {
        "id": series_id, "players": players, "games": counted, "unfinished": unfinished,
        "ignored": ignored, "tokens": _seat_map(tally["tokens"]), "over": tally["over"],
        "winners": list(tally["winners"]),
    }


def series_of(game: Game, games: list[Game]) -> dict[str, Any] | None:
    """The series ``game`` belongs to as it stood after that game (None outside a
    series): the night's games up to this one, counted as :func:`series` counts them."""
    series_id = _series_id(game)
    if series_id is None:
        return None
    upto = [g for g in games if g["number"] <= game["number"] and _series_id(g) == series_id]
    return _one_series(series_id, upto)


def night_tally(games: list[Game], results: list[dict[str, Any]],
                names: dict[int, str]) -> dict[str, Any] | None:
    """Tonight's Kraken games: the token series with a chart each, and the words the
    night's list uses for an outcome, a reason and a role (None when none was played)."""
    if not games:
        return None
    found = series(games)
    return {"series": found,
            "charts": [bar_chart([{"label": names.get(s, "?"), "value": n, "seat": s,
                                   "highlight": s in one["winners"]}
                                  for s, n in one["tokens"].items()])
                       for one in found],
            "player_columns": [(N_("Token series won"), "series_won")] if found else [],
            "outcomes": OUTCOME_LABELS, "reasons": REASON_LABELS,
            "roles": rules.ROLE_LABELS}


def player_night(seat: int, view: dict[str, Any] | None) -> dict[str, Any]:
    """Token series this seat won tonight."""
    found = view["series"] if view else []
    return {"series_won": sum(1 for s in found if s["over"] and seat in s["winners"])}


def stat_parts(play: dict[str, Any]) -> dict[str, Any]:
    """What one finished game adds to a player's statistics (companion/core/sums.py):
    a game, and a win if won, with the role dealt."""
    role = play["game"]["setup"]["roles"].get(str(play["seat"]))
    if role not in rules.ROLE_NAMES:
        return {}
    return {"sums": {role: {"games": 1, "wins": int(play["won"])}}}


def stat_figures(parts: dict[str, Any]) -> dict[str, Any]:
    """Per role dealt, the finished games a player played and won with it."""
    kept = parts["sums"]
    return {"kraken_roles": {role: {"games": kept.get(role, {}).get("games", 0),
                                    "wins": kept.get(role, {}).get("wins", 0)}
                             for role in rules.ROLE_NAMES}}


def awards(games: list[Game], names: dict[int, str]) -> list[Award]:
    """Tonight's Kraken award from its finished games: the Survivor, whose own cards were
    revealed the fewest times per game played (docs/rules.md#award-survivor)."""
    played: dict[int, int] = {}
    revealed: dict[int, int] = {}
    for game in games:
        for seat in game["setup"]["players"]:
            played[seat] = played.get(seat, 0) + 1
            revealed.setdefault(seat, 0)
        for reveal in game["state"]["reveals"]:
            revealed[reveal["seat"]] = revealed.get(reveal["seat"], 0) + 1
    rates = {seat: Fraction(revealed[seat], played[seat]) for seat in played}
    found = leaders(rates, most=False)
    return award("survivor", N_("Survivor"),
                 N_("Fewest own cards revealed per game: %(rate)s"), found,
                 rate=decimal(rates[found[0]]) if found else "")


def standings(setup: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """A running game's standing (docs/rules.md#standings): the round being played. No
    number per player: the teams are secret until the end, and the token series' tokens
    so far have their own section of the tally."""
    return {"progress": (N_("Round %(r)s of %(n)s"), {"r": state["round"], "n": rules.ROUNDS}),
            "label": N_("Tokens"), "highest_wins": False, "scores": {}}


def mask(setup: dict[str, Any], events: list[dict[str, Any]], state: dict[str, Any]
         ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A running game leaves without its deal: the reveals are public and replay the same
    on any deal, so an import deals fresh roles for the same table."""
    bare = {k: json.loads(json.dumps(v)) for k, v in setup.items() if k not in DEALT}
    return bare, json.loads(json.dumps(events))


def options(setup: dict[str, Any]) -> Any:
    return setup.get("options")


def restore(setup: dict[str, Any], players: list[int], rng: Random) -> dict[str, Any]:
    """The setup an imported game stands for: the rules' setup for its options, with the
    file's deal when it has one (it must be a deal of that table's role cards) and a
    fresh deal when the export left it out."""
    fresh = rules.start(players, setup.get("options"), rng=rng)
    if _without_deal(setup) != _without_deal(fresh):
        raise SetupMismatch()
    if not any(key in setup for key in DEALT):
        return fresh
    roles: Any = setup.get("roles")
    unused: Any = setup.get("unused_roles")
    if not _is_deal_of(roles, unused, fresh, players):
        raise SetupMismatch()
    return {**fresh, "roles": dict(roles), "unused_roles": list(unused)}


def _without_deal(setup: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in setup.items() if k not in DEALT}, sort_keys=True)


def _is_deal_of(roles: Any, unused: Any, fresh: dict[str, Any], players: list[int]) -> bool:
    if not isinstance(roles, dict) or not isinstance(unused, list):
        return False
    if set(roles) != {str(s) for s in players}:
        return False
    cards = [*roles.values(), *unused]
    if not all(isinstance(card, str) for card in cards):
        return False
    return sorted(cards) == sorted([*fresh["roles"].values(), *fresh["unused_roles"]])


def bgstats(setup: dict[str, Any], state: dict[str, Any], result: dict[str, Any],
            gettext: Callable[[str], str]) -> dict[str, Any]:
    """A finished game's part of its BG Stats play (docs/bgstats.md#no-touch-kraken): no
    points, winners by team (the whole winning team wins; nobody when the winning team
    had no player), each player's role in the table's language, and why the game ended
    as the comment. Each game of a token series is a play of its own. The start player
    is whoever took the action marker first: the rules' first player, the one who makes
    the first action (docs/rules.md#kraken-play, docs/bgstats.md#no-touch-kraken)."""
    comment = gettext(OUTCOME_LABELS[result["outcome"]])
    if result["reason"] in REASON_LABELS:
        comment += f" ({gettext(REASON_LABELS[result['reason']])})"
    return {"game": {"noPoints": True},
            "comments": comment,
            "players": {seat: {"role": gettext(rules.ROLE_LABELS[result["roles"][seat]]),
                               "startPlayer": seat == state.get("first_marker")}
                        for seat in setup["players"]}}
