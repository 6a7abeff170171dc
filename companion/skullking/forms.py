"""Skull King's forms read into events: the start form, a bid (from the tablet or a
phone), the reveal, a round's results, a correction and an adjustment. What a form
sends is checked here for shape; the rules check the numbers."""

from collections.abc import Mapping
from typing import Any

from companion import store
from companion.core.errors import N_, RuleError
from companion.core.forms import whole_number
from companion.skullking import rules, scoring
from companion.skullking.setup import ADVANCED, CUSTOM, HOUSE_RULES


def _int(value: Any, *, required: bool = True, default: int | None = None) -> Any:
    """A whole number from a form value; RuleError for anything else (``default`` for
    an empty box that is not required)."""
    if value is None or str(value).strip() == "":
        if required:
            raise RuleError(N_("A number is missing: fill in every box."))
        return default
    text = str(value).strip()
    return whole_number(text, N_("“%(value)s” is not a whole number."), value=text[:20])


def parse_new(form: Mapping[str, Any], seats: list[store.Row]) -> tuple[list[int], Any]:
    """Players and options for a new game, from the start form (new.html)."""
    positions = [s["position"] for s in seats]
    players = [p for p in positions if form.get(f"seat{p}")]
    if not players:
        raise RuleError(N_("Choose the players."))
    options: dict[str, Any] = {
        "edition": form.get("edition") or "2021",
        "scoring": form.get("scoring") or "skull_king",
        "way": form.get("way") or "standard",
    }
    for name in (*ADVANCED, *HOUSE_RULES):
        options[name] = bool(form.get(name))
    if options["way"] == CUSTOM:
        text = (form.get("rounds") or "").replace(" ", ",")
        parts = [part for part in text.split(",") if part]
        if not parts or any(not (part.isascii() and part.isdigit()) or len(part) > 3
                            for part in parts):
            raise RuleError(N_("Type the cards of each round as whole numbers separated by "
                               "commas, like 5,5,5."))
        options["rounds"] = [int(part) for part in parts]
    dealer = form.get("first_dealer") or ""
    if dealer:
        dealer = _int(dealer)
        if dealer not in players:
            raise RuleError(N_("The first dealer must be one of the players."))
        options["first_dealer"] = dealer
    return players, options


def _shot(game: store.Game, value: Any) -> str | None:
    """A Rascal's shot from a form: None, "grapeshot" or "cannonball"."""
    if not value:
        return None
    if value not in ("grapeshot", "cannonball"):
        raise RuleError(N_("Unknown shot: %(shot)s."), shot=str(value)[:20])
    return value


def _bid_data(game: store.Game, form: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """A bid event's data from a bid form, for ``seat`` (validated by the rules). The
    Rascal of Roatan's wager is declared when the card is played, so a bid that comes with
    one is refused, never recorded without it (docs/rules.md#skull-king-decisions)."""
    if str(form.get("wager") or "").strip():
        raise RuleError(N_("The Rascal of Roatan's wager is entered with the round's "
                           "results, when the card is played, not with the bid."))
    data: dict[str, Any] = {"round": _int(form.get("round")), "seat": seat,
                            "bid": _int(form.get("bid"))}
    if not rules.bids_left(game.state, data["round"], seat):
        raise RuleError(N_("A bid can be changed at most %(most)s times a round."),
                        most=rules.MOST_BIDS - 1)
    if game.setup["scoring"] == "rascal" or form.get("shot"):
        data["shot"] = _shot(game, form.get("shot"))
    return data


def _results(setup: dict[str, Any], form: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A round's results from the editor: {str(seat): {"won", counters…, "harry",
    "wager"}}. Every field the form holds goes to the rules, which refuse what the
    game's options do not allow (a wager without the pirate abilities is refused, never
    dropped)."""
    results: dict[str, dict[str, Any]] = {}
    for seat in setup["players"]:
        row = {"won": _int(form.get(f"won-{seat}"))}
        for name in scoring.CAPTURES:
            row[name] = _int(form.get(f"{name}-{seat}"), required=False, default=0)
        row["harry"] = _int(form.get(f"harry-{seat}"), required=False, default=0)
        wager = _int(form.get(f"wager-{seat}"), required=False)
        if wager is not None:
            row["wager"] = wager
        results[str(seat)] = row
    return results


def _loot(setup: dict[str, Any], form: Mapping[str, Any]) -> list[list[int]]:
    """The round's Loot pairs [player, captor] from the captors' counts
    ``loot-<player>-<captor>`` (the rules check them, docs/rules.md#skull-king-2021)."""
    pairs: list[list[int]] = []
    for captor in setup["players"]:
        for player in setup["players"]:
            count = _int(form.get(f"loot-{player}-{captor}"), required=False, default=0)
            if not 0 <= count <= scoring.MOST["loot"]:
                raise RuleError(scoring.TOO_MANY["loot"], seat=captor, at="loot")
            pairs += [[player, captor]] * count
    return pairs


def _discarded(form: Mapping[str, Any]) -> int:
    return _int(form.get("discarded"), required=False, default=0)


def adjust_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    """The house rule "adjustments" (docs/rules.md#skull-king-house-rules): one player's
    ± points in a scored round, with a short reason. The amount may be typed with a plus
    or a minus sign (a typographic minus too); the rules check the range, the round and
    the reason."""
    amount = str(form.get("amount") or "").strip().replace("\u2212", "-")
    if not amount:
        raise RuleError(N_("Type the adjustment: a whole number of points, like -10 or "
                           "+20."), at="amount")
    return {"round": _int(form.get("adjust-round")), "seat": _int(form.get("adjust-seat")),
            "amount": whole_number(amount, N_("“%(value)s” is not a whole number."),
                                   value=amount[:20], at="amount"),
            "reason": rules.check_reason(form.get("reason"))}


def host_bid_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    """The host enters one player's bid on the tablet (the tablet then shows only ✓)."""
    # Whether the seat plays in this game is the rules' to say.
    return _bid_data(game, form, _int(form.get("seat")))


def reveal_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    """"Yo-ho-ho!" for a round. Being the game's reveal (game.py), it is recorded with
    the laptop's time and the count's lead (companion/live/clock.py, ``timed``); the
    rules read only the round."""
    return {"round": _int(form.get("round"))}


def result_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    """The tricks won, bonuses, Loot pairs and wager of the round just played: one
    "result" event."""
    return {"round": _int(form.get("round")), "results": _results(game.setup, form),
            "discarded": _discarded(form), "loot": _loot(game.setup, form)}


def correct_data(game: store.Game, form: Mapping[str, Any], round_number: int
                 ) -> dict[str, Any]:
    """A scored round as corrected: every bid and result again, in one event. Each bid
    names its shot (Rascal's scoring); the wager goes with the results."""
    setup = game.setup
    bids: dict[str, dict[str, Any]] = {}
    for seat in setup["players"]:
        entry = {"bid": _int(form.get(f"bid-{seat}"))}
        if setup["scoring"] == "rascal":
            entry["shot"] = _shot(game, form.get(f"shot-{seat}"))
        bids[str(seat)] = entry
    return {"round": round_number, "bids": bids, "results": _results(setup, form),
            "discarded": _discarded(form), "loot": _loot(setup, form)}


def my_bid_data(game: store.Game, form: Mapping[str, Any], seat: store.Row
                ) -> dict[str, Any]:
    """A player's secret bid from their own phone (only ✓ shows elsewhere until the
    reveal). The seat in the form must be the phone's own: the rules refuse any other."""
    claimed = _int(form.get("seat"), required=False, default=seat["position"])
    return _bid_data(game, form, claimed)
