"""Blueprint: No Touch Kraken's own screens and actions (docs/rules.md#kraken).

The host records who takes the action marker first and each reveal (whose card, and what
it was); once a Special card is face up, what it changed (the marker, a card out of turn,
a role shown, a count); and, in any game, a note. Everything else — rounds, marker moves,
the end, the roles — the rules derive from that log. A token series is a random id kept
in the game's options; "Next game" deals fresh roles to the same seats with the same
options and series id.
"""

import secrets
from collections.abc import Callable, Mapping
from typing import Any

from flask import Blueprint, redirect, url_for
from flask_babel import lazy_gettext as _l

from companion import store
from companion.core.awards import record
from companion.core.errors import N_, RuleError
from companion.core.forms import whole_number
from companion.kraken import results, rules
from companion.play.actions import host_action, hosted_game, message, respond, start
from companion.web.http import Answer

bp = Blueprint("kraken", __name__)

OPTIONS = ("curse", "specials", "clockwise")
# The card buttons' values: a card kind, or "special:<name>" for a Special card.
SPECIAL_PREFIX = "special:"


#: The start form's "token series" choices besides an open series' id.
NO_SERIES, NEW_SERIES = ("", "none"), ("new", "on", "1")


def parse_new(form: Mapping[str, Any], seats: list[store.Row]) -> tuple[list[int], Any]:
    """Players and options for a new game, from the start form (new.html).

    Players are the ticked seats (the rules refuse fewer than 3 or more than 8); the
    options are the ticked boxes. The "token series" choice is none, a new series (a
    fresh random id), or the id of one of tonight's series that is not over: the game
    continues it, whatever was played in between, with the same players
    (docs/rules.md#kraken-series).
    """
    players = [s["position"] for s in seats if form.get(f"seat{s['position']}")]
    if not players:
        raise RuleError(N_("Choose the players."))
    options: dict[str, Any] = {name: bool(form.get(name)) for name in OPTIONS}
    options["series"] = _series_choice(str(form.get("series") or ""), players, seats)
    return players, options


def _series_choice(choice: str, players: list[int], seats: list[store.Row]) -> str | None:
    """The series id the form chose (None: no series)."""
    if choice in NO_SERIES:
        return None
    if choice in NEW_SERIES:
        return secrets.token_hex(8)
    night_id = seats[0]["night_id"] if seats else None
    going = {one["id"]: one for one in _open_series(store.games(night_id))} \
        if night_id is not None else {}
    if choice not in going:
        raise RuleError(N_("That token series is over, or it is not one of tonight's."))
    if sorted(players) != going[choice]["players"]:
        names = {s["position"]: s["name"] for s in seats}
        raise RuleError(N_("A token series goes on with the same players: choose %(names)s."),
                        names=", ".join(names.get(p, "?") for p in going[choice]["players"]))
    return choice


def _open_series(games: list[store.Game]) -> list[dict[str, Any]]:
    """Tonight's token series that are not over, each with the numbers of its games."""
    plain = [g.plain() for g in games if g.kind == results.KIND
             and g.setup["options"].get("series")]
    found = results.series(plain)
    for one in found:
        one["numbers"] = [g["number"] for g in plain
                          if g["setup"]["options"]["series"] == one["id"]]
    return [one for one in found if not one["over"]]


def new_view(games: list[store.Game], seats: list[store.Row]) -> dict[str, Any]:
    """What the start form shows: tonight's token series that can go on."""
    return {"open_series": _open_series(games),
            "names": {s["position"]: s["name"] for s in seats}}


def _seat_number(value: Any, game: store.Game) -> int:
    """A seat number from the form (a RuleError for anything else)."""
    # Whether the seat plays in this game is the rules' to say (kraken.rules._seat_of).
    return whole_number(value, N_("Say whose card was revealed."))


def _card(value: Any) -> tuple[str, str | None]:
    """(card kind, special name or None) from a card button's value."""
    value = str(value or "")
    if value.startswith(SPECIAL_PREFIX):
        name = value[len(SPECIAL_PREFIX):]
        if name not in rules.SPECIAL_NAMES:
            raise RuleError(N_("Say which Special card was revealed."))
        return "special", name
    if value not in rules.CARD_KINDS or value == "special":
        raise RuleError(N_("Say which card was revealed."))
    return value, None


def marker_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    """Who was at sea most recently: they take the marker first."""
    return {"seat": _seat_number(form.get("seat"), game)}


def card_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    """A card turned over (the rulebook's "reveal", its event's type): whose card (tap 1)
    and what it was (tap 2). Not the synchronised reveal (``GameDef.reveal``)."""
    if not form.get("seat"):
        raise RuleError(N_("Say whose card was revealed."))
    seat = _seat_number(form.get("seat"), game)
    card, special = _card(form.get("card"))
    data: dict[str, Any] = {"seat": seat, "card": card}
    if special is not None:
        data["special"] = special
    return data


@bp.post("/n/<key>/g/<int:number>/kraken/marker")
def marker(key: str, number: int) -> Answer:
    return host_action(key, number, "kraken", "marker", marker_data)


@bp.post("/n/<key>/g/<int:number>/kraken/reveal")
def reveal(key: str, number: int) -> Answer:
    return host_action(key, number, "kraken", "reveal", card_data)


def seat_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    """A Special card passes the marker: to whom."""
    return {"seat": whole_number(form.get("seat"), N_("Say who takes the action marker."))}


def role_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    """A Special card shows a role: whose, and to whom."""
    return {"seat": whole_number(form.get("seat"), N_("Say whose role was shown.")),
            "to": whole_number(form.get("to"), N_("Say who saw the role."))}


def count_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    """A Special card puts a Treasure or an Empty box in or takes one out: the button's
    value is "<kind>:<+1 or -1>"."""
    kind, _, by = str(form.get("count") or "").partition(":")
    if kind not in rules.COUNTED_KINDS or by not in ("1", "-1"):
        raise RuleError(N_("Say which count goes up or down by one."))
    return {"kind": kind, "by": int(by)}


#: The count buttons of a Special card's move (kraken/_specials.html), by form value.
COUNT_LABELS = {
    "treasure:1": N_("A Treasure came into the game (+1)"),
    "treasure:-1": N_("A face-down Treasure left the game (−1)"),
    "empty:1": N_("An Empty box came into the game (+1)"),
    "empty:-1": N_("A face-down Empty box left the game (−1)"),
}


def note_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    """A line for the history, as typed (spaces around it dropped; the rules check its
    length)."""
    return {"text": " ".join(str(form.get("text") or "").split())}


@bp.post("/n/<key>/g/<int:number>/kraken/special-marker")
def special_marker(key: str, number: int) -> Answer:
    return host_action(key, number, "kraken", "special_marker", seat_data)


@bp.post("/n/<key>/g/<int:number>/kraken/special-reveal")
def special_reveal(key: str, number: int) -> Answer:
    return host_action(key, number, "kraken", "special_reveal", card_data)


@bp.post("/n/<key>/g/<int:number>/kraken/special-role")
def special_role(key: str, number: int) -> Answer:
    return host_action(key, number, "kraken", "special_role", role_data)


@bp.post("/n/<key>/g/<int:number>/kraken/special-count")
def special_count(key: str, number: int) -> Answer:
    return host_action(key, number, "kraken", "special_count", count_data)


@bp.post("/n/<key>/g/<int:number>/kraken/note")
def note(key: str, number: int) -> Answer:
    return host_action(key, number, "kraken", "note", note_data)


@bp.post("/n/<key>/g/<int:number>/kraken/next")
def next_game(key: str, number: int) -> Answer:
    """Deal fresh roles to the same seats with the same options (and series): also after
    other games were played since (docs/rules.md#kraken-series)."""
    night, game = hosted_game(key, number, "kraken")
    games = store.games(night["id"])
    later = _later(game, games)
    if later is not None:
        # The next game was started already (a double tap, another host device).
        return redirect(url_for("play.page", key=key, number=later), 303)
    if not game.finished:
        return respond(night, game, error=message(RuleError(
            N_("Finish this game before starting the next one."))), status=422)
    series = _series(game, lambda: games)
    if series is not None and series["over"]:
        return respond(night, game, error=message(RuleError(
            N_("The token series is already over."))), status=422)
    gone = _left(night, game)
    if gone is not None:
        # The same seats are dealt again, and a series needs them all: the new game's
        # form seats only the players still here.
        return respond(night, game, error=message(RuleError(
            N_("%(player)s left the night: start the next game from the new game form."),
            player=gone), store.names(night["id"])), status=422)
    return start(night, "kraken", list(game.setup["players"]), dict(game.setup["options"]),
                 url_for("kraken.next_game", key=key, number=number))


def _left(night: store.Row, game: store.Game) -> int | None:
    """The first of the game's players who left the night since (or None): no role is
    dealt to a player who is not at the table."""
    left = {s["position"] for s in store.seats(night["id"]) if s["left"]}
    return next((p for p in game.setup["players"] if p in left), None)


# --- what the templates show ---------------------------------------------------------

def _series(game: store.Game, games: Callable[[], list[store.Game]]
            ) -> dict[str, Any] | None:
    """The token series this game belongs to, as of this game (``games()``: the night's
    games, read only for a game of a series)."""
    if not game.setup["options"].get("series"):
        return None
    plain = [g.plain() for g in games() if g.number <= game.number
             and g.kind == results.KIND and g.setup["options"].get("series")]
    return results.series_of(game.plain(), plain)


def _later(game: store.Game, games: list[store.Game]) -> int | None:
    """The game that follows this one: the next game of its token series, or (outside a
    series) the next Kraken game of the same players and options (what "next game"
    starts). Other games played in between do not count."""
    options = game.setup["options"]
    for other in games:
        if other.number <= game.number or other.kind != results.KIND:
            continue
        theirs = other.setup["options"]
        if options.get("series") and theirs.get("series") == options["series"]:
            return other.number
        if not options.get("series") and theirs == options \
                and other.setup["players"] == game.setup["players"]:
            return other.number
    return None


def view(game: store.Game, names: dict[int, str], seat: int | None = None) -> dict[str, Any]:
    """What the Kraken screens show beside the state: labels, series, the next game.
    The same for the host and every phone (a phone's own role comes from the setup).
    The night's other games come from its board (no query when this process has it)."""
    board = store.board(game.night_id, game.board_version)

    def series_and_later() -> tuple[dict[str, Any] | None, int | None]:
        return _series(game, board.games), _later(game, board.games_after(game.number))

    series, later = board.derived(("kraken", game.number, game.length), series_and_later)
    return {
        "series": series,
        "later": later,
        "can_next": game.finished and later is None
                    and not (series is not None and series["over"]),
        "roles": rules.ROLE_LABELS,
        "teams": rules.TEAM_LABELS,
        "cards": rules.CARD_LABELS,
        "specials": rules.SPECIAL_LABELS,
        "kinds": rules.kinds_in_play(curse=game.setup["options"]["curse"],
                                     specials=game.setup["options"]["specials"]),
        "special_prefix": SPECIAL_PREFIX,
        "rounds": rules.ROUNDS,
        "counted": rules.COUNTED_KINDS,
        "box": rules.BOX,
        "count_labels": COUNT_LABELS,
        "note_max": rules.NOTE_MAX,
    }


def _role_record(role: str) -> Any:
    """A player's wins with a role, of the games dealt it, and the win rate: "2 / 3
    (67%)" (docs/rules.md#stat-role-win-rate)."""
    def cell(player: dict[str, Any]) -> str:
        found = player["kraken_roles"][role]
        return record(found["wins"], found["games"])
    return cell


#: The statistics page's Kraken columns: wins and win rate per role dealt, token series
#: won.
STAT_COLUMNS = (
    *((_l("Kraken wins as %(role)s", role=_l(rules.ROLE_LABELS[role])), _role_record(role))
      for role in rules.ROLE_NAMES),
    (_l("Kraken token series won"), lambda player: player["series_won"]),
)
