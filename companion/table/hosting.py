"""Hosts of a night: the host code that makes another device a host, answering it, and
removing a host device."""

from flask import (
    Blueprint,
    abort,
    redirect,
    render_template,
    url_for,
)

from companion import store
from companion.pictures import qr
from companion.table.nights import night_answer, public_url
from companion.web.http import Answer
from companion.web.identity import device, hosted_night_or_404

bp = Blueprint("hosting", __name__)


@bp.post("/n/<key>/hosts")
def invite_host(key: str) -> Answer:
    """A one-time QR that makes another device a host of this night."""
    night = hosted_night_or_404(key)
    token = store.invite_host(night["id"])
    link = public_url(url_for("hosting.become_host", token=token))
    return render_template("table/host_invite.html", night=night, qr_svg=qr.svg(link),
                           link=link, minutes=store.HOST_CODE_MINUTES)


def _host_code_refused(token: str) -> Answer:
    """A used, expired or cancelled code says so; one never shown is a plain 404."""
    if not store.host_invite_known(token):
        abort(404)
    return render_template("table/host_code_gone.html"), 410


@bp.get("/h/<token>")
def host_code(token: str) -> Answer:
    """A host code opens a question, never a change: a link previewer or a photo cannot
    use it up. The device becomes a host only by answering it (a POST). The question
    says what the device will host: the night's players and the Wi-Fi network it shows
    (its own network is never brought there)."""
    invite = store.host_invite(token)
    if invite is None:
        return _host_code_refused(token)
    night = store.night(invite["night_id"])
    if store.is_host(night, device()):
        return redirect(url_for("nights.night", key=night["key"]), 303)
    return render_template("table/become_host.html", night=night, token=token,
                           seat=store.seat_in_night(night["id"], device()),
                           names=store.names(night["id"]), wifi=store.night_wifi(night["id"]))


@bp.post("/h/<token>")
def become_host(token: str) -> Answer:
    """Answer a host code: this device becomes a host of the night (giving up a seat it
    holds there)."""
    night = store.use_host_invite(token, device())
    if night is None:
        return _host_code_refused(token)
    return redirect(url_for("nights.night", key=night["key"]), 303)


@bp.post("/n/<key>/hosts/<int:host_id>/remove")
def remove_host(key: str, host_id: int) -> Answer:
    """Take host rights back from another device of the night."""
    night = hosted_night_or_404(key)
    store.remove_host(night["id"], host_id, device())
    return night_answer(key)
