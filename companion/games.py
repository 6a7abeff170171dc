"""Blueprint: what every game shares — its page, its live fragment, undo, redo, history.

A game's own blueprint parses its forms into events and calls ``act``; this module
records them, answers a refusal with the reason, and renders the fresh view.
"""

from flask import Blueprint, abort, redirect, render_template, request, url_for
from flask_babel import lazy_gettext as _l

from companion import log, store
from companion.errors import RuleError
from companion.web import gettext as _
from companion.web import is_htmx, unchanged

bp = Blueprint("games", __name__)

TITLES = {
    "kraken": _l("No Touch Kraken"),
    "skullking": _l("Skull King"),
    "crazytime": _l("Crazy Time"),
}


STALE = _l("The table moved on: here is the latest. Check it and try again.")
OUT_OF_DATE = _l("This form is out of date: reload the page and try again.")


def message(error):
    """A rule error in the reader's language."""
    return _(error.message, **error.params)


def form_pos():
    """The log position the form was made from (None when missing or not a number)."""
    try:
        return int(request.form.get("pos", ""))
    except ValueError:
        return None


def hosted_game(key, number):
    """The night and game if this device hosts the night; a plain 404 otherwise."""
    night = store.hosted_night(key)
    game = store.game(night["id"], number)
    if game is None:
        abort(404)
    return night, game


def history(game):
    """The visible history: one line per recorded event, undo and redo included."""
    names = store.names(game.night_id)
    lines = []
    for event in game.events:
        if event["type"] == log.UNDO:
            text = _("Undone")
        elif event["type"] == log.REDO:
            text = _("Redone")
        else:
            msg, params = game.rules.describe(event)
            params = {k: names.get(v, v) if k in ("player", "seat") else v
                      for k, v in params.items()}
            text = _(msg, **params)
        lines.append({"seq": event["seq"], "text": text, "at": event["created"]})
    for item in store.activity(game.id):
        if item["kind"] == "pass":
            lines.append({"seq": None, "at": item["created"],
                          "text": _("The tablet was passed to %(player)s.",
                                    player=names.get(item["seat"], "?"))})
    lines.sort(key=lambda line: line["at"])
    for line in lines:
        line["time"] = line["at"][11:16]
    return lines


def host_context(night, game, error=None):
    return {
        "night": night, "game": game, "state": game.state, "setup": game.setup,
        "names": store.names(night["id"]), "title": TITLES[game.kind],
        "seen": store.noted(game.id, "seen"), "error": error,
        "history": history(game),
    }


def respond(night, game, *, error=None, status=200):
    """The game's live fragment for htmx, the whole page otherwise."""
    context = host_context(night, game, error)
    if is_htmx():
        return render_template("games/_live.html", **context), status
    if error is None and request.method == "POST":
        return redirect(url_for("games.page", key=night["key"], number=game.number), 303)
    return render_template("games/page.html", **context), status


def act(night, game, type_, data):
    """Record a host's action on the game and answer with the fresh view.

    Every host form names the log position it was made from; one without it is refused.
    """
    pos = form_pos()
    if pos is None:
        return respond(night, game, error=str(OUT_OF_DATE), status=422)
    try:
        written = store.record(game, type_, data, pos=pos)
    except log.Stale:
        written = None
    except RuleError as error:
        return respond(night, game, error=message(error), status=422)
    night = store.night(night["id"])  # its version first: never newer than the view
    fresh = store.game(night["id"], game.number)
    if written is None:
        return respond(night, fresh, error=str(STALE), status=409)
    # Usually nobody wrote in between, and the log this write read is the view's.
    return respond(night, written if written.length == fresh.length else fresh)


def seat_act(seat, game, type_, data):
    """Record a player's own move from their phone and answer with their fresh page."""
    from companion.nights import seat_response

    try:
        store.record(game, type_, data, pos=None, seat=seat["position"])
    except RuleError as error:
        return seat_response(seat, error=message(error), status=422)
    return seat_response(seat)


@bp.get("/n/<key>/g/<int:number>")
def page(key, number):
    night, game = hosted_game(key, number)
    return respond(night, game)


@bp.get("/n/<key>/g/<int:number>/live")
def live(key, number):
    if unchanged(store.host_version(key)):
        return "", 204
    night, game = hosted_game(key, number)
    return render_template("games/_live.html", **host_context(night, game))


@bp.post("/n/<key>/g/<int:number>/undo")
def undo(key, number):
    night, game = hosted_game(key, number)
    return act(night, game, log.UNDO, {})


@bp.post("/n/<key>/g/<int:number>/redo")
def redo(key, number):
    night, game = hosted_game(key, number)
    return act(night, game, log.REDO, {})


@bp.post("/n/<key>/new/<kind>")
def new(key, kind):
    """Start a game: the kind's module turns the form into players and options."""
    night = store.hosted_night(key)
    if kind not in store.KINDS:
        abort(404)
    from importlib import import_module

    views = import_module(f"companion.{kind}.views")
    try:
        players, options = views.parse_new(request.form, store.seats(night["id"]))
        game = store.start_game(night, kind, players, options)
    except RuleError as error:
        return new_form(key, kind, error=message(error), status=422)
    return redirect(url_for("games.page", key=key, number=game.number), 303)


@bp.get("/n/<key>/new/<kind>")
def new_form(key, kind, error=None, status=200):
    """The form that starts a game of ``kind`` (refilled after a refusal)."""
    night = store.hosted_night(key)
    if kind not in store.KINDS:
        abort(404)
    return render_template(
        f"{kind}/new.html", night=night, seats=store.seats(night["id"]),
        title=TITLES[kind], kind=kind, games=store.games(night["id"]),
        error=error, form=request.form,
    ), status
