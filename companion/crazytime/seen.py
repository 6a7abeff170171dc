"""What each screen of a Crazy Time game may see (docs/security.md, "Secrets by
construction").

A law's When and What cards are known only to the players who made it
(docs/rules.md#crazy-time-matches): a phone gets the text of the laws its player knows
(every law's once the game is over), the room's screen never any, even at the end. A
law's name, its match and who knows it are public; so is the rest of the state.
"""

from typing import Any

from companion.core.registry import Shown

#: A law's secret parts: its cards.
CARDS = ("when", "what")


def _named(law: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in law.items() if key not in CARDS}


def for_seat(setup: dict[str, Any], state: dict[str, Any], seat: int) -> Shown:
    """``seat``'s phone: the cards of the laws its player knows."""
    if state.get("finished"):
        return {"setup": setup, "state": state}
    laws = [law if seat in law["known_by"] else _named(law) for law in state["laws"]]
    return {"setup": setup, "state": {**state, "laws": laws}}


def for_screen(setup: dict[str, Any], state: dict[str, Any]) -> Shown:
    """The room's screen: every law by name only, at the end too (its cards are the
    phones' and the finished game's host page)."""
    laws = [{**_named(law), **dict.fromkeys(CARDS)} if state.get("finished") else _named(law)
            for law in state["laws"]]
    return {"setup": setup, "state": {**state, "laws": laws}}
