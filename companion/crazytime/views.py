"""Blueprint: Crazy Time's screens and actions (docs/rules.md#crazy-time).

The host (tablet) gives penalties in one tap, records the rabbit, the new laws and who
learned a law, and starts the next match. A phone shows its player's penalties and
hours, tells the winners to leave the room, lets a player at the table enter the new
law, and shows the laws its player knows in full (the others by name only).

Every form value is parsed here defensively: anything odd becomes a RuleError with a
message for the person, and nothing is recorded (never a 500).
"""

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, request
from flask_babel import lazy_gettext as _l

from companion import store
from companion.core.errors import N_, RuleError
from companion.core.events import effective
from companion.core.forms import whole_number
from companion.crazytime import results, rules
from companion.play.actions import host_action, no_data, respond, seat_action, seat_response
from companion.web.errors import keeps_typed
from companion.web.http import Answer
from companion.web.identity import device, my_seat

bp = Blueprint("crazytime", __name__)

KIND = "crazytime"
# the penalty reasons the host's select offers, besides "broke a law"
PLAIN_REASONS = ("wrong_call", "slowest_slap", "wrong_stop", "tick_tock", "played_on")


# --- starting a game ------------------------------------------------------------------


def parse_new(form: Mapping[str, Any], seats: list[store.Row]) -> tuple[list[int], Any]:
    """Players and options for a new game, from the start form (docs/rules.md#crazy-time)."""
    players = [s["position"] for s in seats if form.get(f"seat{s['position']}")]
    if not players:
        raise RuleError(N_("Choose the players."))
    side = form.get("side", "purple")
    if side not in rules.SIDES:
        raise RuleError(N_("The board side must be purple or blue, not %(side)s."),
                        side=str(side)[:20])
    return players, {"side": side, "starting_law": bool(form.get("starting_law"))}


# --- parsing form values ------------------------------------------------------------


def _seat(form: Mapping[str, Any], game: store.Game, key: str = "seat") -> int:
    """A seat number from the form that plays in this game."""
    raw = form.get(key)
    seat = whole_number(raw, N_("Choose a player of this game."))
    if seat not in game.state["players"]:
        raise RuleError(N_("That player is not in this game."))
    return seat


def _law(game: store.Game, raw: Any) -> dict[str, Any]:
    """A law made in this game, by its id (a form value)."""
    law_id = whole_number(raw, N_("Choose a law of this game."))
    for law in rules.laws_for(game.state, None):
        if law["id"] == law_id:
            return law
    raise RuleError(N_("There is no such law in this game."))


def penalty_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    """The penalty event's data: the player and the optional reason.

    ``reason`` is "" (none), one of :data:`PLAIN_REASONS`, ``basic:<law>`` (one of the
    three laws in force from match 1) or ``law:<id>`` (a law made in this game).
    """
    data: dict[str, Any] = {"seat": _seat(form, game)}
    reason = str(form.get("reason", "") or "").strip()
    if not reason:
        return data
    if reason in PLAIN_REASONS:
        data["reason"] = reason
    elif reason.startswith("basic:") and reason[6:] in rules.BASIC_LAWS:
        data.update(reason="broke_law", law=reason[6:])
    elif reason.startswith("law:"):
        law = _law(game, reason[4:])
        data.update(reason="broke_law", law=law["id"], law_name=law["name"])
    else:
        raise RuleError(N_("That is not a reason for a penalty."))
    return data


def law_data(game: store.Game, form: Mapping[str, Any], _seat: Any = None
             ) -> dict[str, Any]:
    """The new law: its name, When card and What card (text or card number)."""
    return {key: str(form.get(key, "") or "")[:1000] for key in ("name", "when", "what")}


def rabbit_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    return {"seat": _seat(form, game)}


def learn_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    law = _law(game, form.get("law"))
    return {"law": law["id"], "seat": _seat(form, game), "law_name": law["name"]}


# --- the host's actions -------------------------------------------------------------


@bp.post("/n/<key>/g/<int:number>/crazytime/rabbit")
def rabbit(key: str, number: int) -> Answer:
    return host_action(key, number, KIND, "rabbit", rabbit_data)


@bp.post("/n/<key>/g/<int:number>/crazytime/penalty")
def penalty(key: str, number: int) -> Answer:
    return host_action(key, number, KIND, "penalty", penalty_data)


@bp.post("/n/<key>/g/<int:number>/crazytime/law")
def law(key: str, number: int) -> Answer:
    return host_action(key, number, KIND, "law", law_data)


@bp.post("/n/<key>/g/<int:number>/crazytime/learn")
def learn(key: str, number: int) -> Answer:
    return host_action(key, number, KIND, "learn", learn_data)


@bp.post("/n/<key>/g/<int:number>/crazytime/next")
def next_match(key: str, number: int) -> Answer:
    return host_action(key, number, KIND, "next_match", no_data)


# --- the phone's action ----------------------------------------------------------------


@bp.post("/me/crazytime/law")
def seat_law() -> Answer:
    """A player at the table enters the new law from their phone."""
    return seat_action(KIND, "law", law_data)


# --- a law form refused for its form token keeps what was typed -------------------------


@keeps_typed("crazytime.law")
def _law_form_again(message: str) -> Answer | None:
    """The host's law form, refused for its form token (a page open too long): the game
    comes back with the law's name and cards as typed, and the reason."""
    args = request.view_args or {}
    night = store.hosted_night(str(args.get("key", "")), device())
    game = store.game(night["id"], int(args.get("number", 0))) if night else None
    if night is None or game is None or game.kind != KIND:
        return None
    return respond(night, game, error=message, status=400)


@keeps_typed("crazytime.seat_law")
def _seat_law_form_again(message: str) -> Answer | None:
    """The same on a player's phone."""
    seat = my_seat()
    game = store.current_game(seat["night_id"]) if seat else None
    if seat is None or game is None or game.kind != KIND:
        return None
    return seat_response(seat, error=message, status=400)


# --- what the templates show -------------------------------------------------------------


def _penalty_rows(state: dict[str, Any], names: dict[int, str]) -> list[dict[str, Any]]:
    """A row a player. ``out``: a winner out of the room while the law is made; once it
    is, ``called``: to be called back in (the banner says so too: one truth a moment)."""
    rows = []
    matches = list(range(1, state["match"] + 1))
    for seat in state["players"]:
        per_match = [state["penalties"][str(m)][str(seat)] for m in matches]
        rows.append({"seat": seat, "name": names.get(seat, "?"), "per_match": per_match,
                     "now": per_match[-1], "total": sum(per_match),
                     "hours": state["hours"][str(seat)],
                     "out": seat in state["out_of_room"] and not state["law_made"],
                     "called": seat in state["out_of_room"] and state["law_made"],
                     "rabbit": seat == state["rabbit"]})
    return rows


def _deal(state: dict[str, Any], names: dict[int, str]) -> dict[str, Any]:
    """The deal of this match's 63 time cards (docs/rules.md#crazy-time-decisions): so
    many each, and one more each for the players who get the extra cards — the rabbit
    and the players after them, clockwise. Who gets an extra card depends on the rabbit,
    so when there are extra cards the deal is ``known`` only once the rabbit is: before
    that nobody is named and no phone is told a count that may change."""
    counts = [(int(seat), n) for seat, n in state["deal"].items()]
    each = min(n for _, n in counts)
    # rules.deal lists the seats from the rabbit on, clockwise: the extra cards' order
    more = [names.get(seat, "?") for seat, n in counts if n > each]
    return {"known": state["rabbit"] is not None or not more, "each": each, "more": more,
            "cards": {seat: n for seat, n in counts}}


def _restart(game: store.Game, names: dict[int, str]) -> str | None:
    """Who starts again from 1 o'clock: the player who took the match's latest penalty
    (docs/rules.md#crazy-time-penalties), while the match goes on; None otherwise."""
    state = game.state
    if state["phase"] != "play":
        return None
    for event in reversed(effective(game.events)):
        if event["type"] == "next_match":
            return None
        if event["type"] == "penalty":
            seat = (event.get("data") or {}).get("seat")
            return names.get(seat, "?") if isinstance(seat, int) else "?"
    return None


def _standings(state: dict[str, Any], names: dict[int, str]) -> list[dict[str, Any]]:
    if not state["finished"]:
        return []
    rows = []
    places = results.places(state["standings"])
    for seats in state["standings"]:
        for seat in seats:
            rows.append({"place": places[seat], "shared": len(seats) > 1, "seat": seat,
                         "name": names.get(seat, "?"), "hours": state["hours"][str(seat)],
                         "last": state["penalties"]["4"][str(seat)],
                         "score": state["scores"][str(seat)]})
    return rows


def view(state: dict[str, Any], names: dict[int, str], seat: int | None = None
         ) -> dict[str, Any]:
    """What a Crazy Time screen may show: ``seat=None`` for the host (law names only),
    a seat number for that player's phone (its laws in full, the others by name)."""
    results = state["match_results"]
    last = results[-1] if results and state["phase"] != "play" else None
    return {
        "rows": _penalty_rows(state, names),
        "deal": _deal(state, names),
        "laws": rules.laws_for(state, seat),
        "last": last,
        "at_table": [s for s in state["players"] if s not in state["out_of_room"]],
        "current_has_penalty": any(state["penalties"][str(state["match"])].values()),
        "standings": _standings(state, names),
        "plain_reasons": PLAIN_REASONS,
        "basic_laws": rules.BASIC_LAWS,
    }


def host_view(game: store.Game, names: dict[int, str]) -> dict[str, Any]:
    """The host's screen: every law by name only, and who restarts after a penalty."""
    return {**view(game.state, names), "restart": _restart(game, names)}


def seat_view(game: store.Game, names: dict[int, str], seat: int) -> dict[str, Any]:
    """A phone: the laws its player knows in full, the others by name."""
    return view(game.state, names, seat)


#: The statistics page's Crazy Time column.
STAT_COLUMNS = ((_l("Crazy Time matches won"), lambda player: player["ct_matches_won"]),)
