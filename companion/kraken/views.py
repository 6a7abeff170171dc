"""Blueprint: the kraken game's own screens and actions (to be built)."""

from flask import Blueprint

from companion.errors import N_, RuleError

bp = Blueprint("kraken", __name__)


def parse_new(form, seats):
    """Players and options for a new game, from the start form."""
    players = [s["position"] for s in seats if form.get(f"seat{s['position']}")]
    if not players:
        raise RuleError(N_("Choose the players."))
    return players, {}
