"""Blueprint: Skull King's own screens and actions (docs/rules.md#skull-king).

The host's tablet records bids (or shows who has bid on their phone), reveals them all at
once ("Yo-ho-ho!"), records each round's tricks and bonuses through a structured editor,
and reopens any scored round for a correction. Every form value is parsed defensively:
anything unreadable becomes a RuleError with a message, nothing is recorded, never a 500.
"""

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, abort, redirect, render_template, request, url_for
from flask_babel import lazy_gettext as _l

from companion import store
from companion.errors import N_, RuleError
from companion.forms import whole_number
from companion.games import Answer, host_action, hosted_game, seat_action, title
from companion.skullking import rules

bp = Blueprint("skullking", __name__)

#: What the table calls each way to play, in the menu's order.
WAY_NAMES = {
    "standard": _l("Standard: 10 rounds of 1 to 10 cards"),
    "even_keeled": _l("Even Keeled: 2,2,4,4,6,6,8,8,10,10"),
    "skip_to_the_brawl": _l("Skip to the Brawl: 6,7,8,9,10"),
    "swift_n_salty": _l("Swift-n-Salty: 5 rounds of 5"),
    "broadside": _l("Broadside: 10 rounds of 10"),
    "whirlpool": _l("Whirlpool: 9,9,7,7,5,5,3,3,1,1"),
    "past_your_bedtime": _l("Past Your Bedtime: 1 round of 1"),
    "custom": _l("Custom: type the cards per round"),
}

#: The bonus counters of the results editor, with their labels and the most one player
#: can have (docs/rules.md#skull-king; rules.MOST).
COUNTER_LABELS = {
    "fourteens": _l("Standard 14s"),
    "black_fourteen": _l("Black 14"),
    "mermaids_by_pirate": _l("Mermaids taken by a Pirate"),
    "pirates_by_skull_king": _l("Pirates taken by the Skull King"),
    "skull_king_by_mermaid": _l("Skull King taken by a Mermaid"),
    "loot": _l("Loot alliances that paid"),
}

LINE_COUNT = 8  # chart colours: .sk-line-0 .. .sk-line-7 in skullking.css


@bp.app_template_global()
def skullking_labels() -> dict[str, Any]:
    """The menus' words for the templates (ways to play, bonus counters)."""
    return {"ways": WAY_NAMES, "counters": COUNTER_LABELS}


@bp.app_template_global()
def skullking_most(name: str) -> int:
    """The most of a bonus counter one player can have in a round (rules.MOST)."""
    return rules.MOST[name]


@bp.app_template_global()
def skullking_prefill(rnd: dict[str, Any] | None = None,
                      typed: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Form values by field name: a scored round's bids and results (for a correction),
    overridden by what the host typed when the rules refused it (so nothing is lost)."""
    values: dict[str, Any] = {}
    if rnd is not None and rnd.get("results") is not None:
        for key, row in rnd["results"].items():
            for name, value in row.items():
                values[f"{name}-{key}"] = value
            values[f"bid-{key}"] = rnd["bids"].get(key)
            values[f"shot-{key}"] = rnd["shots"].get(key)
            wager = rnd["wagers"].get(key)
            values[f"wager-{key}"] = "" if wager is None else wager
        values["discarded"] = rnd.get("discarded", 0)
    for name, value in (typed or {}).items():
        if name not in ("csrf_token", "pos"):
            values[name] = value
    return values


# --------------------------------------------------------------------------- parsing


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
    for name in rules.ADVANCED:
        options[name] = bool(form.get(name))
    if options["way"] == rules.CUSTOM:
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


def _wager(value: Any) -> int | None:
    return _int(value, required=False)


def _bid_data(game: store.Game, form: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """A bid event's data from a bid form, for ``seat`` (validated by the rules)."""
    data: dict[str, Any] = {"round": _int(form.get("round")), "seat": seat,
                            "bid": _int(form.get("bid"))}
    if game.setup["scoring"] == "rascal":
        data["shot"] = _shot(game, form.get("shot"))
    if game.setup["abilities"]:
        data["wager"] = _wager(form.get("wager"))
    return data


@bp.app_template_global("skullking_counters")
def counters_for(setup: dict[str, Any]) -> list[str]:
    """The bonus counters this game's edition and options score (docs/rules.md#skull-king)."""
    names = [name for name in rules.BONUS[setup["edition"]] if name != "loot"]
    if setup["loot"]:
        names.append("loot")
    return names


def _results(setup: dict[str, Any], form: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A round's results from the editor: {str(seat): {"won", counters…, "harry"}}."""
    results: dict[str, dict[str, Any]] = {}
    for seat in setup["players"]:
        row = {"won": _int(form.get(f"won-{seat}"))}
        for name in counters_for(setup):
            row[name] = _int(form.get(f"{name}-{seat}"), required=False, default=0)
        if setup["abilities"]:
            row["harry"] = _int(form.get(f"harry-{seat}"), required=False, default=0)
        results[str(seat)] = row
    return results


def _discarded(setup: dict[str, Any], form: Mapping[str, Any]) -> int:
    if setup["kraken"] or setup["white_whale"]:
        return _int(form.get("discarded"), required=False, default=0)
    return 0


# --------------------------------------------------------------------------- the table


def skullking_table(state: dict[str, Any], setup: dict[str, Any], names: dict[int, str]
                    ) -> dict[str, Any]:
    """Everything the score table and the chart show, from the replayed state.

    Bids appear only for revealed rounds: before "Yo-ho-ho!" a row says who has bid, never
    what (docs/rules.md#skull-king).
    """
    players = setup["players"]
    rows = []
    for rnd in state["rounds"]:
        cells = []
        for seat in players:
            key = str(seat)
            cell = {"seat": seat, "has_bid": seat in rnd["bid_done"], "bid": None,
                    "final_bid": None, "won": None, "points": None, "total": None}
            if rnd["revealed"]:
                cell["bid"] = rnd["bids"].get(key)
            if rnd["results"] is not None:
                cell.update(won=rnd["results"][key]["won"], final_bid=rnd["final_bids"][key],
                            points=rnd["points"][key], total=rnd["totals"][key])
            cells.append(cell)
        rows.append({"round": rnd, "cells": cells, "scored": rnd["results"] is not None})
    scored = [row for row in rows if row["scored"]]
    standings = [{"seat": seat, "name": names.get(seat, "?"), "total": state["totals"][str(seat)],
                  "rank": state["ranks"][str(seat)], "leader": seat in state["leader"]}
                 for seat in players]
    return {"rows": rows, "scored": len(scored), "standings": standings,
            "leaders": [names.get(seat, "?") for seat in state["leader"]],
            "by_rank": sorted(standings, key=lambda s: (s["rank"], players.index(s["seat"]))),
            "chart": _chart(state, players, names)}


def _chart(state: dict[str, Any], players: list[int], names: dict[int, str]
           ) -> dict[str, Any]:
    """An SVG line chart of the running totals by round (points are computed here so the
    template only draws; no inline styles — colours come from classes)."""
    width, height, left, right, top, bottom = 640, 260, 48, 16, 16, 32
    count = len(state["rounds"])
    series = {str(seat): [0] for seat in players}
    for rnd in state["rounds"]:
        if rnd["totals"] is None:
            break
        for key in series:
            series[key].append(rnd["totals"][key])
    values = [v for line in series.values() for v in line]
    low, high = min(min(values), 0), max(max(values), 10)
    span = high - low

    def x(i: int) -> float:
        return round(left + (width - left - right) * i / max(count, 1), 1)

    def y(v: int) -> float:
        return round(top + (height - top - bottom) * (high - v) / span, 1)

    step = _nice_step(span)
    ticks = [v for v in range(low - low % step, high + step, step) if low <= v <= high]
    lines = []
    for i, seat in enumerate(players):
        line = series[str(seat)]
        lines.append({"seat": seat, "name": names.get(seat, "?"),
                      "cls": f"sk-line-{i % LINE_COUNT}",
                      "points": " ".join(f"{x(j)},{y(v)}" for j, v in enumerate(line)),
                      "last": (x(len(line) - 1), y(line[-1]))})
    return {"width": width, "height": height, "left": left, "right": width - right,
            "top": top, "bottom": height - bottom, "zero": y(0),
            "xticks": [{"x": x(i), "label": i} for i in range(count + 1)],
            "yticks": [{"y": y(v), "label": v} for v in ticks], "lines": lines}


def _nice_step(span: int) -> int:
    for step in (10, 20, 50, 100, 200, 500):
        if span / step <= 6:
            return step
    return 1000


# --------------------------------------------------------------------------- host actions


def view(game: store.Game, names: dict[int, str], seat: int | None = None) -> dict[str, Any]:
    """The score table and chart, the same on the tablet and every phone."""
    return skullking_table(game.state, game.setup, names)


def host_bid_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    """The host enters one player's bid on the tablet (the tablet then shows only ✓)."""
    # Whether the seat plays in this game is the rules' to say.
    return _bid_data(game, form, _int(form.get("seat")))


def reveal_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    return {"round": _int(form.get("round"))}


def result_data(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
    """The tricks won and bonuses of the round just played: one "result" event."""
    return {"round": _int(form.get("round")), "results": _results(game.setup, form),
            "discarded": _discarded(game.setup, form)}


def correct_data(game: store.Game, form: Mapping[str, Any], round_number: int
                 ) -> dict[str, Any]:
    """A scored round as corrected: every bid and result again, in one event."""
    setup = game.setup
    bids: dict[str, dict[str, Any]] = {}
    for seat in setup["players"]:
        entry = {"bid": _int(form.get(f"bid-{seat}"))}
        if setup["scoring"] == "rascal":
            entry["shot"] = _shot(game, form.get(f"shot-{seat}"))
        if setup["abilities"]:
            entry["wager"] = _wager(form.get(f"wager-{seat}"))
        bids[str(seat)] = entry
    return {"round": round_number, "bids": bids, "results": _results(setup, form),
            "discarded": _discarded(setup, form)}


@bp.post("/n/<key>/g/<int:number>/skullking/bid")
def bid(key: str, number: int) -> Answer:
    return host_action(key, number, "skullking", "bid", host_bid_data)


@bp.post("/n/<key>/g/<int:number>/skullking/reveal")
def reveal(key: str, number: int) -> Answer:
    """"Yo-ho-ho!": every bid of the round is shown at once."""
    return host_action(key, number, "skullking", "reveal_bids", reveal_data)


@bp.post("/n/<key>/g/<int:number>/skullking/result")
def result(key: str, number: int) -> Answer:
    return host_action(key, number, "skullking", "result", result_data)


def _scored_round(game: store.Game, round_number: int) -> dict[str, Any]:
    """A round of the game that has been scored (404 otherwise)."""
    rounds = game.state["rounds"]
    if not 1 <= round_number <= len(rounds) or rounds[round_number - 1]["results"] is None:
        abort(404)
    rnd: dict[str, Any] = rounds[round_number - 1]
    return rnd


@bp.route("/n/<key>/g/<int:number>/skullking/correct/<int:round_number>",
          methods=["GET", "POST"])
def correct(key: str, number: int, round_number: int) -> Answer:
    """Reopen a scored round: a form prefilled with its bids and results; saving it
    records one "correct" event and every later total recomputes (docs/rules.md#skull-king)."""
    night, game = hosted_game(key, number, "skullking")
    _scored_round(game, round_number)

    def page(night: store.Row, game: store.Game, *, error: str | None = None,
             status: int = 200) -> Answer:
        if error is None and request.method == "POST":
            return redirect(url_for("games.page", key=key, number=number), 303)
        typed = request.form if status == 422 else None
        return render_template(
            "skullking/correct.html", night=night, game=game, setup=game.setup,
            state=game.state, rnd=_scored_round(game, round_number),
            names=store.names(night["id"]), title=title("skullking"), error=error,
            form=typed, counters=counters_for(game.setup),
        ), status

    if request.method == "GET":
        return page(night, game)
    return host_action(key, number, "skullking", "correct",
                       lambda game, form: correct_data(game, form, round_number), page=page)


# --------------------------------------------------------------------------- phones


def my_bid_data(game: store.Game, form: Mapping[str, Any], seat: store.Row
                ) -> dict[str, Any]:
    """A player's secret bid from their own phone (only ✓ shows elsewhere until the
    reveal). The seat in the form must be the phone's own: the rules refuse any other."""
    claimed = _int(form.get("seat"), required=False, default=seat["position"])
    return _bid_data(game, form, claimed)


@bp.post("/me/skullking/bid")
def my_bid() -> Answer:
    return seat_action("skullking", "bid", my_bid_data)


def _or_dash(value: Any) -> Any:
    return "—" if value is None else value


#: The statistics page's Skull King columns.
STAT_COLUMNS = (
    (_l("Skull King best"), lambda player: _or_dash(player["sk_best"])),
    (_l("Skull King average"), lambda player: _or_dash(player["sk_average"])),
)
