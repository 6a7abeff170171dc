"""What a recap picture says: the night's (or one game's) content as plain blocks, which
companion/pictures/drawing.py draws. Pure: no Flask, no SQL, no game named.

Only **finished** games are in it: a running game's result is never computed here
(``stats.night_tally`` gives it none), and its kind's part is asked only of finished
games, so no Kraken role or Skull King bid of a running game can reach a picture.

The content is ``{"title", "subtitle", "sections": [{"heading", "blocks"}], "more"}``;
a block is one of

- ``{"kind": "line", "spans": [{"text", "seat"?, "bold"?}], "size"?}``: text, with a
  player's name (a span with a ``seat``) drawn on that player's colour;
- ``{"kind": "bars", "rows": [{"label", "value", "seat", "highlight"}]}``;
- ``{"kind": "lines", "series": [{"seat", "name", "values", "leader"}]}``: running totals.

A game's kind adds its own blocks through ``GameDef.recap`` (its result in words and
charts) and ``GameDef.recap_night`` (what it shows of the whole night, e.g. a token
series); a kind without them gets its winners and its scores as bars.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from companion.core import registry, stats
from companion.core.errors import N_

Block = dict[str, Any]
Section = dict[str, Any]


class Words(NamedTuple):
    """The request's translations and its way of writing a date, passed in (this module
    does not know Flask)."""

    gettext: Callable[..., str]
    ngettext: Callable[..., str]
    #: A stored time stamp as the date the laptop's calendar shows, in the request's
    #: language ("3월 14일(토)").
    date: Callable[[str], str]


def span(text: Any, seat: int | None = None, bold: bool = False) -> dict[str, Any]:
    """A piece of a line; with ``seat``, a player's name on their colour."""
    return {"text": str(text), "seat": seat, "bold": bold}


def line(*spans: dict[str, Any], size: str = "body") -> Block:
    """A line of text (wrapped when long)."""
    return {"kind": "line", "spans": list(spans), "size": size}


def players(seats: list[int], names: dict[int, str]) -> list[dict[str, Any]]:
    """Each player of ``seats`` as a name on their colour."""
    return [span(names.get(seat, "?"), seat) for seat in seats]


def bars(rows: list[dict[str, Any]], caption: str) -> list[Block]:
    """A bar chart under its caption."""
    return [line(span(caption), size="caption"), {"kind": "bars", "rows": rows}]


def score_rows(scores: dict[int, Any], names: dict[int, str], winners: list[int]
               ) -> list[dict[str, Any]]:
    """A bar per player's score, highest first, the winners highlighted."""
    order = sorted(scores, key=lambda seat: -scores[seat])
    return [{"label": names.get(seat, "?"), "value": scores[seat], "seat": seat,
             "highlight": seat in winners} for seat in order]


def winners_line(winners: list[int], names: dict[int, str], gettext: Callable[..., str]
                 ) -> Block:
    """"won by" and the winners (or that nobody won)."""
    if not winners:
        return line(span(gettext(N_("Nobody won")), bold=True))
    return line(span(gettext(N_("won by")) + " "), *players(winners, names))


def default_blocks(result: dict[str, Any], names: dict[int, str], words: Words
                   ) -> list[Block]:
    """A finished game of a kind that says nothing more: its winners, and its scores."""
    blocks = [winners_line(result["winners"], names, words.gettext)]
    if result["scores"]:
        blocks += bars(score_rows(result["scores"], names, result["winners"]),
                       words.gettext(N_("Score")))
    return blocks


def game_section(game: dict[str, Any], result: dict[str, Any], names: dict[int, str],
                 words: Words, known: registry.Games) -> Section:
    """A finished game's card: "Title · game #n", then its kind's blocks."""
    kind = known[game["kind"]]
    heading = " · ".join((str(kind.title),
                          words.gettext(N_("game #%(number)s"), number=game["number"])))
    blocks = (kind.recap(game["setup"], game["state"], result, names, words.gettext)
              if kind.recap is not None else default_blocks(result, names, words))
    return {"heading": heading, "blocks": blocks}


def _more(words: Words) -> Callable[[int], Section]:
    def more(count: int) -> Section:
        return {"heading": "", "blocks": [line(span(words.ngettext(
            "…and %(num)s more part: see the tally",
            "…and %(num)s more parts: see the tally", count)), size="small")]}
    return more


def _winners_section(tally: dict[str, Any], names: dict[int, str], words: Words
                     ) -> Section:
    """Who won the most games tonight, and the games won per player."""
    most = max((p["won"] for p in tally["players"]), default=0)
    best = [p["seat"] for p in tally["players"] if most > 0 and p["won"] == most]
    won = words.ngettext("%(num)s game won", "%(num)s games won", most)
    blocks = [line(span(won + ": "), *players(best, names))] if best else []
    rows = sorted(tally["players"], key=lambda p: -p["won"])
    blocks += bars([{"label": p["name"], "value": p["won"], "seat": p["seat"],
                     "highlight": p["seat"] in best} for p in rows],
                   words.gettext(N_("Games won per player")))
    return {"heading": words.gettext(N_("Winners of the night")), "blocks": blocks}


def _awards_section(tally: dict[str, Any], names: dict[int, str], words: Words
                    ) -> list[Section]:
    """Tonight's awards, when the tally has any (each ``{"title", "text", "params",
    "seats"}``, ``N_`` messages)."""
    found = tally.get("awards") or []
    blocks = []
    for award in found:
        blocks.append(line(span(words.gettext(award["title"]), bold=True),
                           span(" "), *players(list(award["seats"]), names)))
        if award.get("text"):
            blocks.append(line(span(words.gettext(award["text"], **award.get("params", {}))),
                               size="small"))
    return [{"heading": words.gettext(N_("Tonight's awards")), "blocks": blocks}] if blocks else []


def night(created: str, names: dict[int, str], games: list[dict[str, Any]],
          words: Words, known: registry.Games) -> dict[str, Any] | None:
    """The night's picture: the winners, the awards, each kind's night part (the token
    series), then each finished game in order. None before a game has finished."""
    tally = stats.night_tally(names, games, known)
    if not tally["finished"]:
        return None
    sections = [_winners_section(tally, names, words), *_awards_section(tally, names, words)]
    for kind, view in tally["kinds"].items():
        part = known[kind].recap_night
        if part is not None:
            sections += part(view, names, words.gettext)
    by_number = {g["number"]: g for g in games}
    sections += [game_section(by_number[r["number"]], r, names, words, known)
                 for r in tally["games"] if r["finished"]]
    subtitle = " · ".join((words.date(created), words.ngettext(
        "%(num)s game finished", "%(num)s games finished", tally["finished"])))
    return {"title": words.gettext(N_("Tonight's tally")), "subtitle": subtitle,
            "sections": sections, "more": _more(words)}


def game(created: str, names: dict[int, str], one: dict[str, Any], words: Words,
         known: registry.Games) -> dict[str, Any] | None:
    """One finished game's picture (None while it runs)."""
    result = stats.game_result(one["kind"], one["setup"], one["state"], known)
    if not result["finished"]:
        return None
    section = game_section(one, result, names, words, known)
    return {"title": section["heading"], "subtitle": words.date(str(one.get("created") or created)),
            "sections": [{"heading": "", "blocks": section["blocks"]}],
            "more": _more(words)}
