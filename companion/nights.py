"""Blueprint: the night — roster, seats and their QR codes, the phone pages, hosts.

The host device creates a night and shows one QR per seat. The first phone that opens a
seat's link claims it (the device cookie); the seat page is then that phone's for the
whole night: its live region polls its own URL with the version it shows, and is
re-rendered only when the night's version has moved on.
"""

from typing import Any, cast

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    url_for,
)

from companion import qr, registry, store
from companion.games import Answer, seat_context, seat_response
from companion.web import device, hosted_night, is_htmx, my_seat, unchanged
from companion.web import gettext as _

bp = Blueprint("nights", __name__)

MIN_PLAYERS, MAX_PLAYERS = 3, 8
NAME_LENGTH = 30


def parse_names(values: list[str]) -> tuple[list[str] | None, str | None]:
    """The player names typed in seat order, or a message saying what is wrong."""
    names = [v.strip() for v in values if v.strip()]
    if any(len(n) > NAME_LENGTH for n in names):
        return None, _("A name can be at most %(n)s characters.", n=NAME_LENGTH)
    if len(names) < MIN_PLAYERS:
        return None, _("A night needs at least %(n)s players.", n=MIN_PLAYERS)
    if len(names) > MAX_PLAYERS:
        return None, _("A night can have at most %(n)s players.", n=MAX_PLAYERS)
    folded = [n.casefold() for n in names]
    for n, f in zip(names, folded, strict=True):
        if folded.count(f) > 1:
            return None, _("Two players are called “%(name)s”: make the names different.",
                           name=n)
    return names, None


def public_url(path: str) -> str:
    """The address a phone on the same Wi-Fi uses (the LAN address, not localhost)."""
    base = current_app.config.get("PUBLIC_URL") or request.host_url
    return base.rstrip("/") + path


# --- the host's screens -------------------------------------------------------------

@bp.get("/")
def index(error: str | None = None, status: int = 200, typed: list[str] | None = None
          ) -> Answer:
    nights = store.hosted_nights(device())
    rosters = {n["id"]: [s["name"] for s in store.seats(n["id"])] for n in nights}
    return render_template(
        "nights/index.html", nights=nights, rosters=rosters, error=error,
        typed=typed or [], max_players=MAX_PLAYERS, name_length=NAME_LENGTH,
    ), status


@bp.post("/nights")
def create() -> Answer:
    names: list[str] | None
    same_as = request.form.get("same_as")
    if same_as:
        earlier = hosted_night(same_as)
        names = [s["name"] for s in store.seats(earlier["id"])]
    else:
        typed = request.form.getlist("name")[:MAX_PLAYERS + 4]
        names, error = parse_names(typed)
        if error:
            return index(error=error, status=422, typed=typed)
    # parse_names gives names whenever it gives no error
    night = store.create_night(cast(list[str], names), device())
    return redirect(url_for("nights.night", key=night["key"]), 303)


def night_context(night: store.Row) -> dict[str, Any]:
    return {
        "night": night, "seats": store.seats(night["id"]), "games": store.games(night["id"]),
        "games_known": registry.games(),
    }


@bp.get("/n/<key>")
def night(key: str) -> Answer:
    night = hosted_night(key)
    return render_template("nights/night.html", **night_context(night))


@bp.get("/n/<key>/live")
def night_live(key: str) -> Answer:
    if unchanged(store.host_version(key, device())):
        return "", 204
    night = hosted_night(key)
    return render_template("nights/_night.html", **night_context(night))


def hosted_seat(key: str, position: int) -> tuple[store.Row, store.Row]:
    """The host's night and one of its seats; anyone else, or no such seat: a plain 404."""
    night = hosted_night(key)
    seat = next((s for s in store.seats(night["id"]) if s["position"] == position), None)
    if seat is None:
        abort(404)
    return night, seat


@bp.get("/n/<key>/qr/<int:position>.svg")
def seat_qr(key: str, position: int) -> Answer:
    _night, seat = hosted_seat(key, position)
    return Response(qr.svg(public_url(url_for("nights.claim", token=seat["token"]))),
                    mimetype="image/svg+xml")


@bp.get("/n/<key>/sheet")
def sheet(key: str) -> Answer:
    night = hosted_night(key)
    return render_template("nights/sheet.html", night=night, seats=store.seats(night["id"]))


@bp.post("/n/<key>/seats/<int:position>/release")
def release(key: str, position: int) -> Answer:
    """Free a seat so it can be claimed again (a new phone, cleared cookies)."""
    night = hosted_night(key)
    store.release_seat(night["id"], position)
    if is_htmx():
        return night_live(key)
    return redirect(url_for("nights.night", key=key), 303)


@bp.post("/n/<key>/hosts")
def invite_host(key: str) -> Answer:
    """A one-time QR that makes another device a host of this night."""
    night = hosted_night(key)
    token = store.invite_host(night["id"])
    link = public_url(url_for("nights.become_host", token=token))
    return render_template("nights/host_invite.html", night=night, qr_svg=qr.svg(link),
                           link=link)


@bp.get("/h/<token>")
def become_host(token: str) -> Answer:
    night = store.use_host_invite(token, device())
    if night is None:
        abort(404)
    return redirect(url_for("nights.night", key=night["key"]), 303)


@bp.post("/n/<key>/pass/<int:position>")
def pass_to(key: str, position: int) -> Answer:
    """Hand the tablet to a player with no phone: the only way a host shows a secret."""
    night, seat = hosted_seat(key, position)
    game = store.current_game(night["id"])
    store.note(night["id"], game.id if game else None, position, "pass")
    return render_template("nights/pass.html", **seat_context(seat, game))


# --- the phones -------------------------------------------------------------------

@bp.get("/s/<token>")
def claim(token: str) -> Answer:
    """The seat's QR link: the first phone to open it holds the seat all night."""
    seat = store.seat_by_token(token)
    if seat is None:
        abort(404)
    night = store.night(seat["night_id"])
    if seat["device"] == device():
        return redirect(url_for("nights.me"), 303)
    if seat["device"] is not None:
        return render_template("nights/taken.html"), 409
    if store.is_host(night, device()):
        return render_template("nights/host_scanned.html", night=night), 409
    claimed, held = store.claim_seat(seat, device())
    if held is not None:
        return render_template("nights/one_seat.html", name=held), 409
    if not claimed:
        return render_template("nights/taken.html"), 409
    return redirect(url_for("nights.me"), 303)


@bp.get("/me")
def me() -> Answer:
    seat = my_seat()
    if seat is None:
        return render_template("nights/no_seat.html")
    return seat_response(seat)


@bp.get("/me/live")
def me_live() -> Answer:
    if unchanged(store.seat_version(device())):
        return "", 204
    seat = my_seat()
    if seat is None:
        return render_template("nights/_no_seat.html")
    return render_template("nights/_seat.html", **seat_context(seat))


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
    """A short rules summary of a game, for anyone at the table."""
    if kind not in registry.games():
        abort(404)
    return render_template(f"{kind}/rules.html", title=registry.get(kind).title, kind=kind)
