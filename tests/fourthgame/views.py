"""Secret Number's blueprint: a form turned into event data, nothing more."""

from pathlib import Path
from typing import Any

from flask import Blueprint

from companion import store
from companion.core.errors import N_, RuleError
from companion.core.forms import whole_number
from companion.play.actions import host_action, no_data, seat_action

bp = Blueprint("secretnumber", __name__,
               template_folder=str(Path(__file__).parent / "templates"))


def parse_new(form: Any, seats: list[dict[str, Any]]) -> tuple[list[int], dict[str, Any]]:
    players = [s["position"] for s in seats if form.get(f"seat{s['position']}")]
    return players, {"top": whole_number(form.get("top", "6"), N_("Choose the players."))}


def point_data(game: store.Game, form: Any) -> dict[str, Any]:
    seat = whole_number(form.get("seat"), N_("Say whose card was revealed."))
    if seat not in game.setup["players"]:
        raise RuleError(N_("That seat is not playing in this game."))
    return {"seat": seat}


@bp.post("/n/<key>/g/<int:number>/secretnumber/point")
def point(key: str, number: int) -> Any:
    return host_action(key, number, "secretnumber", "point", point_data)


@bp.post("/n/<key>/g/<int:number>/secretnumber/show")
def show(key: str, number: int) -> Any:
    return host_action(key, number, "secretnumber", "show", no_data)


@bp.post("/n/<key>/g/<int:number>/secretnumber/finish")
def finish(key: str, number: int) -> Any:
    return host_action(key, number, "secretnumber", "finish", no_data)


@bp.post("/me/secretnumber/ready")
def ready() -> Any:
    return seat_action("secretnumber", "ready", lambda game, form, seat: {})


def host_view(game: store.Game, names: dict[int, str]) -> dict[str, Any]:
    return {"points": game.state["points"]}


def seat_view(game: store.Game, names: dict[int, str], seat: int) -> dict[str, Any]:
    """The phone's own number (and, once the game is over, everyone's)."""
    secrets = game.setup["secrets"]
    return {"mine": secrets.get(str(seat)),  # None: a seat sitting the game out
            "all": secrets if game.finished else None}
