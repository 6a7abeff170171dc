"""The one action pipeline every game uses: a write checked by the game's rules and
recorded once, and the answer each screen gets (the host's page, a phone's seat), with
the history of events in the request's language."""

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, cast

from flask import abort, current_app, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import lazy_gettext as _l
from markupsafe import Markup

from companion import store
from companion.core import stats
from companion.core.errors import RuleError
from companion.core.events import REDO, UNDO
from companion.core.lru import Pickled
from companion.live.clock import timed
from companion.play import seen
from companion.web.errors import error_page
from companion.web.http import Answer
from companion.web.i18n import gettext as _
from companion.web.identity import device, form_token, hosted_night_or_404, is_htmx, my_seat
from companion.web.offload import later
from companion.web.templating import bdi

STALE = _l("The table moved on: here is the latest. Check it and try again.")


OUT_OF_DATE = _l("This form is out of date: reload the page and try again.")


#: The parameters of a rule's message or history line that name a seat: the table reads
#: the player's name there ("to": whom a Kraken Special card showed a role).
SEAT_PARAMS = ("player", "seat", "to")


#: Turns the posted form into an event's data (raises RuleError for a bad form).
Parse = Callable[[store.Game, Mapping[str, Any]], dict[str, Any]]


def title(kind: str) -> str:
    """A game's title in the request's language (looked up once: a page shows it up to
    four times, and each use of the lazy string looked its catalog up again)."""
    return str(store.known_games()[kind].title)


def message(error: RuleError, names: Mapping[int, str] | None = None) -> str:
    """A rule error in the reader's language. The rules name a player by their seat
    number (``player`` or ``seat``); the table reads the player's name instead."""
    params = error.params
    if names is not None:
        params = {key: names.get(value, value)
                  if key in SEAT_PARAMS and type(value) is int else value
                  for key, value in params.items()}
    return _(error.message, **params)


def form_pos() -> int | None:
    """The log position the form was made from (None when missing or not a number)."""
    try:
        return int(request.form.get("pos", ""))
    except ValueError:
        return None


def hosted_game(key: str, number: int, kind: str | None = None
                ) -> tuple[store.Row, store.Game]:
    """The night and game if this device hosts the night (and the game is of ``kind``
    when given); a plain 404 otherwise."""
    night = hosted_night_or_404(key)
    game = store.game(night["id"], number)
    if game is None or (kind is not None and game.kind != kind):
        abort(404)
    return night, game


def history(game: store.Game, names: Mapping[int, str], activity: list[store.Row]
            ) -> list[dict[str, Any]]:
    """The visible history: one line per recorded event, undo and redo included, and the
    tablet's passes (``activity``, the game's rows beside its log)."""
    lines = []
    for event in game.events:
        if event["type"] == UNDO:
            text = _("Undone")
        elif event["type"] == REDO:
            text = _("Redone")
        else:
            msg, params = game.rules.describe(event)
            params = {k: bdi(names.get(v, v)) if k in SEAT_PARAMS else v
                      for k, v in params.items()}
            text = Markup(_(msg)) % params
        lines.append({"seq": event["seq"], "text": text, "at": event["created"],
                      "order": event["seq"]})
    for item in activity:
        if item["kind"] == "pass":
            # After the event it followed in the log: the order is the log's, not a
            # clock's (a clock set back would shuffle the lines).
            lines.append({"seq": None, "at": item["created"], "order": (item["pos"] or 0) + .5,
                          "text": Markup(_("The tablet was passed to %(player)s.")) % {
                              "player": bdi(names.get(item["seat"], "?"))}})
    lines.sort(key=lambda line: line["order"])
    for line in lines:
        line["time"] = line["at"][11:16]
    return lines


#: The view models of a game: what a viewer sees beyond its page's own parts (the
#: game's view, its result), by board, game and log position, viewer and language.
#: After a change a table's screens each ask for the new version within a second; a viewer that asks
#: again (a reconnect, a second host device) costs no replay, no view, no query.
#: Pickled and bounded in bytes, as every cache here.
_view_models = Pickled(2048, 32 * 1024 * 1024)


#: A game's history as its host page lists it, by game and log position, names, the
#: game's activity and language: all it is made of. Not by the night's version, as the
#: views are (a view may name the night's other games): a change elsewhere in the night
#: (a colour, another game) keeps it, so a history is kept once, not once a version (an
#: 8,000-event one is megabytes).
_histories = Pickled(512, 64 * 1024 * 1024)


def view_model(board: store.Board, game: store.Game, viewer: str | int,
               build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``build()``, or what it gave for this board, game position, viewer (``"host"``
    or a seat number: a seat's view may hold its secret) and language. Nothing may
    change what it returns."""
    key = (board.key, game.id, game.length, game.last, viewer, str(get_locale()))
    model: dict[str, Any] | None = _view_models.get(key)
    if model is None:
        model = build()
        _view_models.put(key, model)
    return model


def game_history(board: store.Board, game: store.Game) -> list[dict[str, Any]]:
    """:func:`history` of ``game`` as ``board`` holds it, worked out once for each game
    position, names, activity and language."""
    activity = board.activity_of(game.id)
    key = (board.database, game.id, game.length, game.last,
           tuple(sorted(board.names.items())),
           tuple((r["seat"], r["kind"], r["created"], r["pos"]) for r in activity),
           str(get_locale()))
    lines: list[dict[str, Any]] | None = _histories.get(key)
    if lines is None:
        lines = history(game, board.names, activity)
        _histories.put(key, lines)
    return lines


def host_context(night: store.Row, game: store.Game, error: str | None = None
                 ) -> dict[str, Any]:
    """What the host's game page shows, drawn from the night's board at ``night``'s
    version or newer. The page says ``night``'s version, as old as ``game``: a newer
    board at most makes the screen ask once more."""
    board = store.board(night["id"], night["version"])
    names = board.names
    model = view_model(board, game, "host", lambda: {
        "view": store.known_games()[game.kind].host_view(game, names),
        "seen": board.noted(game.id, "seen"),
    })
    return {
        "night": night, "game": game, "state": game.state, "setup": game.setup,
        "held": seen.held_until(game) is not None,
        "names": names, "colours": board.colours, "title": title(game.kind),
        "shown": board.current_game(), "error": error,
        "history": game_history(board, game), **model,
    }


def respond(night: store.Row, game: store.Game, *, error: str | None = None,
            status: int = 200) -> Answer:
    """The game's live fragment for htmx, the whole page otherwise."""
    context = host_context(night, game, error)
    if is_htmx():
        return render_template("play/_live.html", **context), status
    if error is None and request.method == "POST":
        return redirect(url_for("play.page", key=night["key"], number=game.number), 303)
    return render_template("play/page.html", **context), status


#: How a host action answers: the night, the game as it now stands, and an optional
#: refusal (the default, :func:`respond`, shows the game's fresh view).
Page = Callable[..., Answer]


def host_action(key: str, number: int, kind: str | None, type_: str, parse: Parse,
                *, page: Page = respond) -> Answer:
    """The one pipeline of a host's action: host check → the form's log position →
    parse the form → 422 with the rule's reason → record → 409 when stale → the fresh
    view.

    ``parse(game, form)`` turns the form into the event's data (a RuleError for a bad
    form), and the game's reveal gets the laptop's time (companion/live/clock.py,
    ``timed``); the rules check the event itself when it is recorded. Every host form names
    the log position it was made from; one without it is refused.
    """
    night, game = hosted_game(key, number, kind)
    pos = form_pos()
    if pos is None:
        return page(night, game, error=str(OUT_OF_DATE), status=422)
    try:
        data = timed(game, type_, parse(game, request.form))
        written = store.record(game, type_, data, pos=pos, device=device())
    except store.Stale:
        written = None
    except RuleError as error:
        return page(night, game, error=message(error, store.names(night["id"])), status=422)
    night = store.night(night["id"])  # its version first: never newer than the view
    fresh = cast(store.Game, store.game(night["id"], game.number))  # it was read above
    # The views read the night's other games from the board at this version (the page
    # reads it first), without asking the night's version again.
    fresh = replace(fresh, board_version=night["version"])
    if written is None:
        return page(night, fresh, error=str(STALE), status=409)
    _show_end_later(night["id"], fresh)
    # Usually nobody wrote in between, and the log this write read is the view's.
    if written.length == fresh.length:
        return page(night, replace(written, board_version=night["version"]))
    return page(night, fresh)


def _show_end_later(night_id: int, game: store.Game) -> None:
    """A game's end held back (companion/play/seen.py, ``held_until``) shows on every
    screen when its time comes: the night is drawn again then (its version moves)."""
    until = seen.held_until(game)
    if until is None:
        return
    app = current_app._get_current_object()  # type: ignore[attr-defined]

    def show() -> None:
        with app.app_context():
            store.touch(night_id)

    later(max(0.0, until - time.time()) + 0.2, show)


def seat_context(seat: store.Row, game: store.Game | None = None, *,
                 seen_url: str | None = None) -> dict[str, Any]:
    """What a phone's page shows: its seat, the table, and the current game as that seat
    may see it, drawn from the night's board. ``seen_url`` is where revealing a secret
    is noted (the phone's own, or the host's when the tablet was passed to the seat)."""
    board = store.board(seat["night_id"], seat.get("night_version"))
    game = game if game is not None else board.current_game()
    game = seen.as_shown(game) if game is not None else None  # an end held: before it
    names = board.names
    model: dict[str, Any] = {"view": None, "result": None}
    # The phone is drawn from what the game gives this seat (its for_seat), never from
    # the whole game: no template or view of it can reach another seat's secret.
    shown = seen.for_seat(game, seat["position"]) if game is not None else None
    if game is not None and shown is not None:
        spec, mine = store.known_games()[game.kind], shown
        model = view_model(board, game, seat["position"], lambda: {
            "view": spec.seat_view(mine, names, seat["position"]),
            "result": finished_result(game),
        })
    return {
        "seat": seat, "me": seat["position"], "names": names, "colours": board.colours,
        "game": shown, "state": shown.state if shown else None,
        "setup": shown.setup if shown else None,
        "title": title(game.kind) if game else None,
        "night": board.night, "seen_url": seen_url or url_for("phones.seen"),
        "error": None, "passed": False, **model,
    }


def finished_result(game: store.Game | None) -> dict[str, Any] | None:
    """A finished game's public result (``stats.game_result``: winners, places) for the
    phone's "you won / you lost" line; None while a game runs (its state may hold
    secrets, and it has no result yet)."""
    if game is None or not game.state.get("finished"):
        return None
    return stats.game_result(game.kind, game.setup, game.state, store.known_games())


def seat_response(seat: store.Row, *, error: str | None = None, status: int = 200
                  ) -> Answer:
    """A phone's page (or its live fragment for htmx), with an optional refusal."""
    template = "table/_seat.html" if is_htmx() else "table/seat.html"
    return render_template(template, **{**seat_context(seat), "error": error}), status


def seat_action(kind: str, type_: str, parse: Callable[..., dict[str, Any]]) -> Answer:
    """A player's own move from their phone (a Skull King bid, a Crazy Time law): the
    seat's check → parse → 422 with the rule's reason → record at the end of the log →
    the phone's fresh page. ``parse(game, form, seat)`` gives the event's data."""
    seat = my_seat()
    if seat is None:
        abort(404)
    game = store.current_game(seat["night_id"])
    if game is None or game.kind != kind:
        return seat_response(seat, error=_("There is no %(title)s game now.",
                                           title=title(kind)), status=422)
    try:
        data = timed(game, type_, parse(game, request.form, seat))
        store.record(game, type_, data, pos=None, device=device(), seat=seat["position"])
    except RuleError as error:
        return seat_response(seat, error=message(error, store.names(seat["night_id"])),
                             status=422)
    return seat_response(seat)


def no_data(_game: store.Game, _form: Mapping[str, Any]) -> dict[str, Any]:
    """An action with nothing to say beyond its type (undo, next match)."""
    return {}


def _leave() -> int | None:
    """The running game the host agreed to leave unfinished (the confirm step's answer)."""
    try:
        return int(request.form.get("leave", ""))
    except ValueError:
        return None


def confirm_start(night: store.Row, running: store.Game, kind: str, action: str) -> Answer:
    """Ask before a game starts while another runs on the phones: the second step sends
    the same form again, saying which game it leaves unfinished."""
    fields = [(name, value) for name, value in request.form.items(multi=True)
              if name not in ("csrf_token", "form_token", "leave")]
    return render_template("play/confirm_start.html", night=night, running=running,
                           title=title(kind), action=action, fields=fields,
                           form_token=form_token()), 409


def start(night: store.Row, kind: str, players: list[int], options: Any, action: str
          ) -> Answer:
    """Start a game and go to it: once per form token (the same form sent again goes to
    the game it made), and only after asking while another game runs on the phones.
    ``action`` is the URL the form posts to (the confirm step posts there again)."""
    try:
        game = store.start_game(night, kind, players, options, form_token=form_token(),
                                leave=_leave())
    except store.Running as running:
        return confirm_start(night, running.game, kind, action)
    except store.FormUsed:
        return error_page(str(OUT_OF_DATE), 409)
    return redirect(url_for("play.page", key=night["key"], number=game.number), 303)
