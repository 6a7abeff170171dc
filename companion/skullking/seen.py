"""What each screen of a Skull King game may see (docs/security.md, "Secrets by
construction").

A round's bids are secret until "Yo-ho-ho!" reveals them (docs/rules.md#skull-king): a
phone sees its own bid (its shot, its wager, how often it changed it), the room's screen
none. Every other part of the setup and state is public.
"""

from typing import Any

from companion.core.registry import Shown

#: A round's parts that are each player's own until its bids are revealed.
SECRET = ("bids", "shots", "wagers", "bid_count")


def _round(round_: dict[str, Any], own: str | None) -> dict[str, Any]:
    """A round as one viewer may see it: a revealed one whole; else only ``own``'s
    secrets (None: nobody's)."""
    if round_["revealed"]:
        return round_
    hidden = {part: ({own: round_[part][own]} if own is not None and own in round_[part]
                     else {}) for part in SECRET}
    return {**round_, **hidden}


def for_seat(setup: dict[str, Any], state: dict[str, Any], seat: int) -> Shown:
    """``seat``'s phone: its own bids, and every bid once revealed."""
    return {"setup": setup,
            "state": {**state, "rounds": [_round(r, str(seat)) for r in state["rounds"]]}}


def for_screen(setup: dict[str, Any], state: dict[str, Any]) -> Shown:
    """The room's screen: bids only once revealed."""
    return {"setup": setup,
            "state": {**state, "rounds": [_round(r, None) for r in state["rounds"]]}}
