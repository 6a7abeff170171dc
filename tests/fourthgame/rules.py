"""Secret Number's rules as pure functions (no Flask, no SQL)."""

import random
from typing import Any

from companion.core.errors import N_, RuleError
from companion.core.ranking import competition_ranks
from companion.core.registry import SetupMismatch, replayed

HOST_EVENTS = frozenset({"point", "show", "finish"})
SEAT_EVENTS = frozenset({"ready"})


def start(players: list[int], options: Any, rng: Any = None) -> dict[str, Any]:
    """Deal each player a secret number from 1 to ``options["top"]`` (2 to 9)."""
    if not 2 <= len(players) <= 8 or len(set(players)) != len(players):
        raise RuleError(N_("Choose the players."))
    top = (options or {}).get("top")
    if not isinstance(top, int) or isinstance(top, bool) or not 2 <= top <= 9:
        raise RuleError(N_("Choose the players."))
    rng = rng or random.SystemRandom()
    return {"players": list(players), "top": top,
            "secrets": {str(seat): rng.randint(1, top) for seat in players}}


def _point(setup: dict[str, Any], state: dict[str, Any], event: dict[str, Any]) -> None:
    seat = (event.get("data") or {}).get("seat")
    if seat not in setup["players"]:
        raise RuleError(N_("That seat is not playing in this game."))
    state["points"][str(seat)] += 1


def _show(setup: dict[str, Any], state: dict[str, Any], event: dict[str, Any]) -> None:
    """Everyone shows their card at once (the game's synchronised reveal, game.py)."""
    state["shown"] += 1


def _finish(setup: dict[str, Any], state: dict[str, Any], event: dict[str, Any]) -> None:
    state["finished"] = True


def _ready(setup: dict[str, Any], state: dict[str, Any], event: dict[str, Any]) -> None:
    if event.get("seat") not in state["ready"]:
        state["ready"].append(event.get("seat"))


HANDLERS = {"point": _point, "show": _show, "finish": _finish, "ready": _ready}


def begin(setup: dict[str, Any]) -> dict[str, Any]:
    return {"points": {str(s): 0 for s in setup["players"]}, "ready": [], "shown": 0,
            "finished": False}


def step(setup: dict[str, Any], state: dict[str, Any], event: dict[str, Any]) -> None:
    if state["finished"]:
        raise RuleError(N_("The game is over."))
    HANDLERS[event["type"]](setup, state, event)


def conclude(setup: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    return state


def replay(setup: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    return replayed(setup, events, begin, step, conclude)


def describe(event: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "%(seat)s: " + event["type"], {"seat": (event.get("data") or {}).get("seat")}


def result(setup: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """The most points win; places are shared (1, 1, 3) by the one ranking rule."""
    scores = {int(s): n for s, n in state["points"].items()}
    places = competition_ranks(scores)
    return {"scores": scores, "places": places,
            "winners": [s for s in setup["players"] if places[s] == 1]}


def mask(setup: dict[str, Any], events: list[dict[str, Any]], state: dict[str, Any]
         ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return {k: v for k, v in setup.items() if k != "secrets"}, [dict(e) for e in events]


def for_seat(setup: dict[str, Any], state: dict[str, Any], seat: int) -> dict[str, Any]:
    """A phone sees its own number, and everyone's once the game is over."""
    if state["finished"]:
        return {"setup": setup, "state": state}
    mine = {str(seat): setup["secrets"][str(seat)]} if str(seat) in setup["secrets"] else {}
    return {"setup": {**setup, "secrets": mine}, "state": state}


def for_screen(setup: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """The room's screen sees no number before the end."""
    if state["finished"]:
        return {"setup": setup, "state": state}
    return {"setup": {**setup, "secrets": {}}, "state": state}


def options(setup: dict[str, Any]) -> dict[str, Any]:
    return {"top": setup.get("top")}


def restore(setup: dict[str, Any], players: list[int], rng: Any) -> dict[str, Any]:
    fresh = start(players, options(setup), rng)
    if "secrets" not in setup:
        return fresh
    secrets = setup["secrets"]
    if set(setup) != set(fresh) or not isinstance(secrets, dict) \
            or set(secrets) != set(fresh["secrets"]) \
            or not all(isinstance(n, int) and 1 <= n <= fresh["top"]
                       for n in secrets.values()):
        raise SetupMismatch()
    return {**fresh, "secrets": dict(secrets)}
