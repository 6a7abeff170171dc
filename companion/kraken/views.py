"""Blueprint: No Touch Kraken's own screens and actions (issue 3, RULES.md §1).

The host records two things: who takes the action marker first, and each reveal (whose
card, and what it was). Everything else — rounds, marker moves, the end, the roles — the
rules derive from that log. A token series is a random id kept in the game's options;
"Next game" deals fresh roles to the same seats with the same options and series id.
"""

import secrets

from flask import Blueprint, abort, redirect, request, url_for

from companion import store
from companion.errors import N_, RuleError
from companion.forms import whole_number
from companion.games import act, hosted_game, message, respond
from companion.kraken import rules

bp = Blueprint("kraken", __name__)

OPTIONS = ("curse", "specials", "clockwise")
# The card buttons' values: a card kind, or "special:<name>" for a Special card.
SPECIAL_PREFIX = "special:"


def parse_new(form, seats):
    """Players and options for a new game, from the start form (new.html).

    Players are the ticked seats (the rules refuse fewer than 3 or more than 8); the
    options are the ticked boxes; a ticked "token series" starts a new series with a
    fresh random id (RULES.md §1 Token series).
    """
    players = [s["position"] for s in seats if form.get(f"seat{s['position']}")]
    if not players:
        raise RuleError(N_("Choose the players."))
    options = {name: bool(form.get(name)) for name in OPTIONS}
    options["series"] = secrets.token_hex(8) if form.get("series") else None
    return players, options


def _seat_number(value, game):
    """A seat number from the form (a RuleError for anything else)."""
    seat = whole_number(value, N_("Say whose card was revealed."))
    if seat not in game.setup["players"]:
        raise RuleError(N_("That seat is not playing in this game."))
    return seat


def _card(value):
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


@bp.post("/n/<key>/g/<int:number>/kraken/marker")
def marker(key, number):
    """The table says who was at sea most recently: they take the marker first."""
    night, game = hosted_game(key, number)
    _kind(game)
    try:
        seat = _seat_number(request.form.get("seat"), game)
    except RuleError as error:
        return respond(night, game, error=message(error), status=422)
    return act(night, game, "marker", {"seat": seat})


@bp.post("/n/<key>/g/<int:number>/kraken/reveal")
def reveal(key, number):
    """One action: whose card was revealed (tap 1) and what it was (tap 2)."""
    night, game = hosted_game(key, number)
    _kind(game)
    try:
        if not request.form.get("seat"):
            raise RuleError(N_("Say whose card was revealed."))
        seat = _seat_number(request.form.get("seat"), game)
        card, special = _card(request.form.get("card"))
    except RuleError as error:
        return respond(night, game, error=message(error), status=422)
    data = {"seat": seat, "card": card}
    if special is not None:
        data["special"] = special
    return act(night, game, "reveal", data)


@bp.post("/n/<key>/g/<int:number>/kraken/next")
def next_game(key, number):
    """Deal fresh roles to the same seats with the same options (and series)."""
    night, game = hosted_game(key, number)
    _kind(game)
    latest = store.current_game(night["id"])
    if latest.number != game.number:
        # Someone already started the next game (a double tap, another host device).
        return redirect(url_for("games.page", key=key, number=latest.number), 303)
    if not game.finished:
        return respond(night, game, error=message(RuleError(
            N_("Finish this game before starting the next one."))), status=422)
    series = series_of(game)
    if series is not None and series["over"]:
        return respond(night, game, error=message(RuleError(
            N_("The token series is already over."))), status=422)
    new = store.start_game(night, "kraken", list(game.setup["players"]),
                           dict(game.setup["options"]))
    return redirect(url_for("games.page", key=key, number=new.number), 303)


def _kind(game):
    if game.kind != "kraken":
        abort(404)


# --- what the templates ask for -----------------------------------------------------

def series_of(game):
    """The token series this game belongs to, as of this game (RULES.md §1 Token series).

    Counts the night's finished Kraken games with the same series id, in game order, up
    to this one; an unfinished game never counts, and nothing after the series ended.
    Returns None when the game is not part of a series, else ``rules.series_tokens``'s
    dict plus "numbers" (the games counted).
    """
    series_id = game.setup["options"].get("series")
    if not series_id:
        return None
    players = list(game.setup["players"])
    results, numbers = [], []
    tally = rules.series_tokens(players, [])
    for other in store.games(game.night_id):
        if other.number > game.number:
            break
        if other.kind != "kraken" or other.setup["options"].get("series") != series_id:
            continue
        if not other.finished:
            continue
        results.append({"losers": list(other.state["losers"])})
        numbers.append(other.number)
        tally = rules.series_tokens(players, results)
        if tally["over"]:
            break
    return {**tally, "numbers": numbers}


@bp.app_template_global()
def kraken_view(game):
    """What the Kraken templates show beside the state: labels, series, the next game."""
    latest = store.latest_number(game.night_id)
    series = series_of(game)
    return {
        "series": series,
        "later": latest if latest > game.number else None,
        "can_next": game.finished and latest == game.number
                    and not (series is not None and series["over"]),
        "roles": rules.ROLE_LABELS,
        "teams": rules.TEAM_LABELS,
        "cards": rules.CARD_LABELS,
        "specials": rules.SPECIAL_LABELS,
        "kinds": rules.kinds_in_play(curse=game.setup["options"]["curse"],
                                     specials=game.setup["options"]["specials"]),
        "special_prefix": SPECIAL_PREFIX,
        "rounds": rules.ROUNDS,
    }
