"""What each screen of a Kraken game may see (docs/security.md, "Secrets by construction").

A phone sees its own role and the roles a Special card showed it; the room's screen sees
no role. Once the game is over every role is public, the role cards set aside too
(docs/rules.md#kraken-end). The rest of the setup and the whole state are public: the
state holds no role while the game runs.
"""

from typing import Any

from companion.core.registry import Shown

#: The setup's secrets: the deal.
DEALT = ("roles", "unused_roles")

#: Seconds the end waits before every role shows, on the TV, the phones and the host's
#: page alike: one mis-tap on "Kraken" ended the game and showed every role at once (an
#: undo restored the game, but the roles had been seen). The host sees "Game over —
#: Undo" meanwhile.
END_HELD_S = 5


def _without_deal(setup: dict[str, Any], roles: dict[str, str]) -> dict[str, Any]:
    public = {key: value for key, value in setup.items() if key not in DEALT}
    return {**public, "roles": roles}


def for_seat(setup: dict[str, Any], state: dict[str, Any], seat: int) -> Shown:
    """``seat``'s phone: its own role, and each role a Special card showed it."""
    if state.get("finished"):
        return {"setup": setup, "state": state}
    own = {str(seat), *(str(shown["seat"]) for shown in state["shown"] if shown["to"] == seat)}
    roles = {key: role for key, role in setup["roles"].items() if key in own}
    return {"setup": _without_deal(setup, roles), "state": state}


def for_screen(setup: dict[str, Any], state: dict[str, Any]) -> Shown:
    """The room's screen: no role before the end."""
    if state.get("finished"):
        return {"setup": setup, "state": state}
    return {"setup": _without_deal(setup, {}), "state": state}
