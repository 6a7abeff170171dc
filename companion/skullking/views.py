"""Blueprint: Skull King's own screens and actions (docs/rules.md#skull-king).

The host's tablet records bids (or shows who has bid on their phone), reveals them all at
once ("Yo-ho-ho!"), records each round's tricks and bonuses through a structured editor,
and reopens any scored round for a correction. Every form value is parsed defensively:
anything unreadable becomes a RuleError with a message, nothing is recorded, never a 500."""

from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

from flask import Blueprint, abort, g, redirect, render_template, request, url_for
from flask_babel import lazy_gettext as _l

from companion import store
from companion.core.awards import record
from companion.core.errors import RuleError
from companion.core.events import effective
from companion.play.actions import host_action, hosted_game, respond, seat_action, title
from companion.skullking import results, rules, score_table, scoring
from companion.skullking.forms import (
    adjust_data,
    correct_data,
    host_bid_data,
    my_bid_data,
    result_data,
    reveal_data,
)
from companion.skullking.setup import house_rules
from companion.web.http import YEAR, Answer

bp = Blueprint("skullking", __name__)

#: The box a host's device last started a game with: its next game's form asks with that
#: box chosen (a device's own choice, so a cookie; the seed's classic box before any).
BOX_COOKIE = "skullking_box"
FIRST_BOX = "classic"


def remembered_box() -> str:
    """The edition this device last started a Skull King game in, else the classic box."""
    box = request.cookies.get(BOX_COOKIE)
    return box if box in scoring.EDITIONS else FIRST_BOX


def new_view(games: list[store.Game], seats: list[store.Row]) -> dict[str, Any]:
    """The start form's choices: the box chosen until the host picks another."""
    return {"box": remembered_box()}


@bp.after_app_request
def remember_box(response: Any) -> Any:
    """A Skull King game started (the start form answered with its page): this device
    remembers the box for its next game."""
    # The form is read only for this one answer: any other request's body stays unread.
    if (request.endpoint != "play.new" or response.status_code != 303
            or (request.view_args or {}).get("kind") != "skullking"):
        return response
    box = request.form.get("edition")
    if box in scoring.EDITIONS:
        response.set_cookie(BOX_COOKIE, box, max_age=YEAR, samesite="Lax", httponly=True)
    return response


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


#: The bonus counters of the round's editor, as the captor counts them
#: (docs/rules.md#skull-king; the most one player can have: scoring.MOST).
COUNTER_LABELS = {
    "fourteens": _l("Standard 14s in your tricks"),
    "black_fourteen": _l("Black 14 in your tricks"),
    "mermaids_by_pirate": _l("Mermaids taken by your Pirate"),
    "pirates_by_skull_king": _l("Pirates taken by your Skull King"),
    "skull_king_by_mermaid": _l("Skull King taken by your Mermaid"),
}


#: What each edition counts as a Pirate: classic Scary Mary always, the 2021 Tigress only
#: when played as a Pirate (docs/rules.md#skull-king-scoring, docs/rules.md#skull-king-2021).
COUNTER_HINTS = {
    ("classic", "pirates_by_skull_king"):
        _l("Scary Mary counts as a Pirate, even when played as an Escape."),
    ("2021", "pirates_by_skull_king"):
        _l("The Tigress counts only when played as a Pirate; as an Escape she earns no "
           "bonus."),
    ("2021", "mermaids_by_pirate"):
        _l("The Tigress played as a Pirate counts as your Pirate."),
}


#: The house rules, as the start form, the screens and the history name them
#: (docs/rules.md#skull-king-house-rules).
HOUSE_RULE_NAMES = {name: _l(label) for name, label in results.HOUSE_RULE_LABELS.items()}


def screen_chart(state: Mapping[str, Any], setup: Mapping[str, Any],
                 names: Mapping[int, str]) -> dict[str, Any]:
    """The chart of the totals drawn for the room's screen (score_table.SCREEN: labels read
    from the sofa; SCREEN_END once the game is over, wider, where the round stood)."""
    geometry = score_table.SCREEN_END if state.get("finished") else score_table.SCREEN
    return score_table.chart(dict(state), setup["players"], dict(names), **geometry)


def hint(edition: str, name: str) -> Any:
    """What a bonus counter's label adds for this edition (Scary Mary, the Tigress)."""
    return COUNTER_HINTS.get((edition, name), "")


def prefill(rnd: dict[str, Any] | None = None,
            typed: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Form values by field name: a scored round's bids and results (for a correction),
    overridden by what the host typed when it was refused (so nothing is lost). A wager
    shows with the results whether it was recorded there or, in an older log, with the
    bid; Loot pairs become the captor's counts ``loot-<player>-<captor>``."""
    values: dict[str, Any] = {}
    if rnd is not None and rnd.get("results") is not None:
        for key, row in rnd["results"].items():
            for name, value in row.items():
                if name != "loot":
                    values[f"{name}-{key}"] = value
            values[f"bid-{key}"] = rnd["bids"].get(key)
            values[f"shot-{key}"] = rnd["shots"].get(key)
            wager = row.get("wager", rnd["wagers"].get(key))
            values[f"wager-{key}"] = "" if wager is None else wager
        for player, captor in rnd.get("loot", []):
            name = f"loot-{player}-{captor}"
            values[name] = values.get(name, 0) + 1
        values["discarded"] = rnd.get("discarded", 0)
    for name, value in (typed or {}).items():
        if name not in ("csrf_token", "pos"):
            values[name] = value
    return values


def fault() -> dict[str, Any]:
    """Where the last refusal of the round's editor points: ``seat`` (a player's row),
    ``at`` (a field) or ``counter`` (a bonus counter); empty when nothing was refused."""
    fault: dict[str, Any] = g.get("skullking_fault", {})
    return fault


def counters_for(setup: dict[str, Any]) -> list[str]:
    """The capture counters this game's edition scores (docs/rules.md#skull-king); Loot
    is entered as pairs, apart."""
    return [name for name in scoring.CAPTURES if name in scoring.BONUS[setup["edition"]]]


#: Skull King's helpers and values as its templates reach them: one name in every
#: template's namespace, the game's kind (``skullking.labels``, ``skullking.signed(n)``),
#: rather than a global per helper poured into every game's templates. ``labels``: the
#: menus' words (ways to play, bonus counters, house rules); ``most``: the most of each
#: bonus counter one player can have in a round; ``most_adjustment``: the largest
#: adjustment either way; ``reason_length``: the longest reason of one.
HELPERS = SimpleNamespace(
    labels={"ways": WAY_NAMES, "counters": COUNTER_LABELS, "house": HOUSE_RULE_NAMES},
    house_rules=house_rules, most_adjustment=scoring.MOST_ADJUSTMENT,
    reason_length=rules.REASON_LENGTH, screen_chart=screen_chart, signed=score_table.signed,
    hint=hint, most=scoring.MOST, prefill=prefill, fault=fault, counters=counters_for)
bp.record_once(lambda state: state.app.jinja_env.globals.update(skullking=HELPERS))


def view(game: store.Game, names: dict[int, str], seat: int | None = None) -> dict[str, Any]:
    """The score table, the per-player view and the chart, the same on the tablet and on
    every phone: worked out once per board (a table's nine screens ask for it after each
    change), since it holds no secret (bids only once revealed, docs/rules.md#skull-king)."""
    board = store.board(game.night_id, game.board_version)
    key = ("skullking", game.id, game.length, game.last, tuple(sorted(names.items())))
    return board.derived(key, lambda: score_table.score_table(game.state, game.setup, names))


def _fault(game: store.Game, type_: str, data: Callable[[], dict[str, Any]]) -> None:
    """Where a refused round points (a player's row, a field), for the templates
    (:func:`fault`): the refused event is checked again on the log it was
    refused on."""
    try:
        event = {"type": type_, "data": data(), "seat": None}
        rules.replay(game.setup, [*effective(game.events), event])
    except RuleError as error:
        g.skullking_fault = dict(error.params)


@bp.post("/n/<key>/g/<int:number>/skullking/bid")
def bid(key: str, number: int) -> Answer:
    return host_action(key, number, "skullking", "bid", host_bid_data)


@bp.post("/n/<key>/g/<int:number>/skullking/adjust")
def adjust(key: str, number: int) -> Answer:
    """A house rule's adjustment of one player's points in a scored round; a refusal
    shows at the adjustment's form, which keeps what was typed."""

    def page(night: store.Row, game: store.Game, *, error: str | None = None,
             status: int = 200) -> Answer:
        if status == 422:
            _fault(game, "adjust", lambda: adjust_data(game, request.form))
        return respond(night, game, error=error, status=status)

    return host_action(key, number, "skullking", "adjust", adjust_data, page=page)


@bp.post("/n/<key>/g/<int:number>/skullking/reveal")
def reveal(key: str, number: int) -> Answer:
    """"Yo-ho-ho!": every bid of the round is shown at once."""
    return host_action(key, number, "skullking", "reveal_bids", reveal_data)


@bp.post("/n/<key>/g/<int:number>/skullking/result")
def result(key: str, number: int) -> Answer:
    """The round's results; a refusal shows beside the score button and at the field at
    fault."""

    def page(night: store.Row, game: store.Game, *, error: str | None = None,
             status: int = 200) -> Answer:
        if status == 422:
            _fault(game, "result", lambda: result_data(game, request.form))
        return respond(night, game, error=error, status=status)

    return host_action(key, number, "skullking", "result", result_data, page=page)


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
    records one "correct" event and every later total recomputes (docs/rules.md#skull-king).
    A refused or stale save keeps what the host entered."""
    night, game = hosted_game(key, number, "skullking")
    _scored_round(game, round_number)

    def parse(game: store.Game, form: Mapping[str, Any]) -> dict[str, Any]:
        return correct_data(game, form, round_number)

    def page(night: store.Row, game: store.Game, *, error: str | None = None,
             status: int = 200) -> Answer:
        if error is None and request.method == "POST":
            return redirect(url_for("play.page", key=key, number=number), 303)
        if status == 422:
            _fault(game, "correct", lambda: parse(game, request.form))
        typed = request.form if status in (409, 422) else None
        return render_template(
            "skullking/correct.html", night=night, game=game, setup=game.setup,
            state=game.state, rnd=_scored_round(game, round_number),
            names=store.names(night["id"]), title=title("skullking"), error=error,
            form=typed, counters=counters_for(game.setup),
        ), status

    if request.method == "GET":
        return page(night, game)
    return host_action(key, number, "skullking", "correct", parse, page=page)


@bp.post("/me/skullking/bid")
def my_bid() -> Answer:
    return seat_action("skullking", "bid", my_bid_data)


def _or_dash(value: Any) -> Any:
    return "—" if value is None else value


#: The statistics page's Skull King columns.
STAT_COLUMNS = (
    (_l("Skull King best"), lambda player: _or_dash(player["sk_best"])),
    (_l("Skull King average"), lambda player: _or_dash(player["sk_average"])),
    (_l("Skull King exact bids"),
     lambda player: record(player["sk_exact"]["hits"], player["sk_exact"]["rounds"])),
    (_l("Skull King zero bids made"),
     lambda player: record(player["sk_zero"]["hits"], player["sk_zero"]["rounds"])),
)
