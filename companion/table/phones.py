"""A player's phone: the seat code it opens ("Are you …?"), claiming the seat, the seat's
page and live region, and the rules of the game it plays."""

from flask import (
    Blueprint,
    abort,
    redirect,
    render_template,
    url_for,
)

from companion import store
from companion.play.actions import seat_context, seat_response
from companion.table.nights import note_arrival
from companion.web.http import Answer
from companion.web.identity import device, my_seat, unchanged

bp = Blueprint("phones", __name__)


def _seat_refusal(seat: store.Row | None, token: str) -> Answer | None:
    """Why this device cannot take the seat a code opens (None when it can)."""
    if seat is None:
        replaced = store.retired_code(token)
        if replaced is None:
            abort(404)
        return render_template("table/code_replaced.html", seat=replaced), 410
    night = store.night(seat["night_id"])
    if seat["tablet"]:
        return render_template("table/tablet_seat.html", seat=seat), 409
    if seat["device"] is not None and seat["device"] != device():
        return render_template("table/taken.html", mine=my_seat()), 409
    if store.is_host(night, device()):
        return render_template("table/host_scanned.html", night=night), 409
    held = store.seat_in_night(night["id"], device())
    if held is not None and held["id"] != seat["id"]:
        return render_template("table/one_seat.html", name=held["name"]), 409
    return None


@bp.get("/s/<token>")
def claim_page(token: str) -> Answer:
    """A seat's QR link opens a question: "Are you …?" Nothing changes until the player
    answers it (a GET or HEAD, a link previewer, takes nothing; it only tells the host's
    page that a device reaches the laptop)."""
    seat = store.seat_by_token(token)
    if seat is not None:
        note_arrival(store.night(seat["night_id"]))
    refusal = _seat_refusal(seat, token)
    if refusal is not None:
        return refusal
    assert seat is not None
    current = my_seat()
    elsewhere = current if current and current["night_id"] != seat["night_id"] else None
    return render_template("table/claim.html", seat=seat, token=token,
                           mine=seat["device"] == device(), elsewhere=elsewhere)


@bp.post("/s/<token>")
def claim(token: str) -> Answer:
    """Take the seat (or, for the phone that holds it, make its night the current one):
    the phone's page is then this seat's."""
    seat = store.seat_by_token(token)
    refusal = _seat_refusal(seat, token)
    if refusal is not None:
        return refusal
    assert seat is not None
    claimed, held = store.claim_seat(seat, device())
    if held is not None:
        return render_template("table/one_seat.html", name=held), 409
    if not claimed:
        return render_template("table/taken.html", mine=my_seat()), 409
    return redirect(url_for("phones.me"), 303)


@bp.get("/me")
def me() -> Answer:
    seat = my_seat()
    if seat is None:
        return render_template("table/no_seat.html")
    return seat_response(seat)


@bp.get("/me/live")
def me_live() -> Answer:
    seat = my_seat()
    if unchanged(seat["night_version"] if seat else -1):
        return "", 204
    if seat is None:
        return render_template("table/_no_seat.html")
    return render_template("table/_seat.html", **seat_context(seat))


@bp.post("/me/seen")
def seen() -> Answer:
    """The phone revealed its secret once: the host sees “seen ✓” (never the secret)."""
    seat = my_seat()
    game = store.current_game(seat["night_id"]) if seat else None
    if seat is None or game is None:
        abort(404)
    if seat["position"] not in store.noted(game.id, "seen"):
        store.note(seat["night_id"], game.id, seat["position"], "seen")
    return "", 204


@bp.get("/rules/<kind>")
def rules(kind: str) -> Answer:
    """A short rules summary of a game, for anyone at the table; a phone that holds a
    seat gets a way back to its page (table/rules.html wraps the game's own page)."""
    if kind not in store.known_games():
        abort(404)
    return render_template("table/rules.html", page=f"{kind}/rules.html",
                           title=store.known_games()[kind].title, kind=kind,
                           phone=my_seat() is not None)
