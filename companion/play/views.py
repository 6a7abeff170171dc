"""A game's page: the host's view of one game, its live region, undo and redo, resuming,
and starting a game of any kind (its form and the question when another is running)."""

from flask import Blueprint, abort, redirect, render_template, request, url_for

from companion import store
from companion.core.errors import RuleError
from companion.core.events import REDO, UNDO
from companion.play.actions import (
    host_action,
    host_context,
    hosted_game,
    message,
    no_data,
    respond,
    start,
    title,
)
from companion.web.errors import keeps_typed
from companion.web.http import Answer
from companion.web.identity import device, form_token, hosted_night_or_404, unchanged

bp = Blueprint("play", __name__)


@bp.get("/n/<key>/g/<int:number>")
def page(key: str, number: int) -> Answer:
    night, game = hosted_game(key, number)
    return respond(night, game)


@bp.get("/n/<key>/g/<int:number>/live")
def live(key: str, number: int) -> Answer:
    night = hosted_night_or_404(key)
    if unchanged(night["version"]):
        return "", 204
    game = store.board(night["id"], night["version"]).game(number)
    if game is None:
        abort(404)
    return render_template("play/_live.html", **host_context(night, game))


@bp.post("/n/<key>/g/<int:number>/undo")
def undo(key: str, number: int) -> Answer:
    return host_action(key, number, None, UNDO, no_data)


@bp.post("/n/<key>/g/<int:number>/redo")
def redo(key: str, number: int) -> Answer:
    return host_action(key, number, None, REDO, no_data)


@bp.post("/n/<key>/g/<int:number>/resume")
def resume(key: str, number: int) -> Answer:
    """Show this unfinished game on the table's phones again (they follow within
    seconds), and go to it."""
    night, game = hosted_game(key, number)
    if not game.finished:
        store.set_current_game(night["id"], game.number)
    return redirect(url_for("play.page", key=key, number=game.number), 303)


def playing(night: store.Row) -> list[store.Row]:
    """The night's seats a new game may seat: every one but those that left."""
    return [s for s in store.seats(night["id"]) if not s["left"]]


@bp.post("/n/<key>/new/<kind>")
def new(key: str, kind: str) -> Answer:
    """Start a game: the kind's package turns the form into players and options."""
    night = hosted_night_or_404(key)
    if kind not in store.known_games():
        abort(404)
    try:
        players, options = store.known_games()[kind].parse_new(request.form, playing(night))
        return start(night, kind, players, options, url_for("play.new", key=key, kind=kind))
    except RuleError as error:
        return new_form(key, kind, error=message(error, store.names(night["id"])),
                        status=422)


@keeps_typed("play.new")
def _start_form_again(message: str) -> Answer | None:
    """A start form refused for its form token comes back as it was filled in (the
    players ticked, the options, a custom list of rounds), with the reason."""
    args = request.view_args or {}
    key, kind = str(args.get("key", "")), str(args.get("kind", ""))
    if store.hosted_night(key, device()) is None or kind not in store.known_games():
        return None
    return new_form(key, kind, error=message, status=400)


@bp.get("/n/<key>/new/<kind>")
def new_form(key: str, kind: str, error: str | None = None, status: int = 200) -> Answer:
    """The form that starts a game of ``kind`` (refilled after a refusal)."""
    night = hosted_night_or_404(key)
    if kind not in store.known_games():
        abort(404)
    games, seats = store.games(night["id"]), playing(night)
    return render_template(
        f"{kind}/new.html", night=night, seats=seats, title=title(kind), kind=kind,
        # A link may fill the form in (a Skull King game started again in the other box).
        games=games, error=error, form=request.form if request.method == "POST" else request.args,
        form_token=form_token(),
        view=store.known_games()[kind].new_view(games, seats),
    ), status
