"""No Touch Kraken in the recap picture: a finished game's outcome, its winners and every
role (all revealed at the end), and the night's token series. Pure: no Flask, no SQL.

Only finished games are asked for: a running game's roles never reach a picture, and a
token series counts finished games only (results.series)."""

from collections.abc import Callable
from typing import Any

from companion.core.errors import N_
from companion.core.recap import Block, Section, bars, line, players, span
from companion.kraken import rules
from companion.kraken.results import OUTCOME_LABELS, REASON_LABELS

#: A word and its parenthesis, as the language writes them: "Skeletons win (…)", but
#: "스켈레톤 승리(…)" (docs/translations.md, "Quotation marks and parentheses").
GLOSS = N_("%(word)s %(parenthesis)s")


def game(setup: dict[str, Any], state: dict[str, Any], result: dict[str, Any],
         names: dict[int, str], gettext: Callable[..., str]) -> list[Block]:
    """The outcome (and why) with the winners, then each role with its players."""
    outcome = gettext(OUTCOME_LABELS[result["outcome"]])
    if result["reason"] in REASON_LABELS:
        # Korean puts no space before a parenthesis: the catalog's own joiner
        outcome = gettext(GLOSS, word=outcome,
                          parenthesis=f"({gettext(REASON_LABELS[result['reason']])})")
    winners = players(result["winners"], names)
    blocks = [line(span(outcome + (": " if winners else ""), bold=True), *winners)]
    roles: list[dict[str, Any]] = []
    for role in rules.ROLE_NAMES:
        seats = [s for s in setup["players"] if result["roles"].get(s) == role]
        if seats:
            roles += [span(("  " if roles else "") + gettext(rules.ROLE_LABELS[role]) + ": "),
                      *players(seats, names)]
    if roles:
        blocks.append(line(*roles, size="small"))
    return blocks


def night(view: dict[str, Any], names: dict[int, str], gettext: Callable[..., str]
          ) -> list[Section]:
    """Each token series of the night: who won it (or that it goes on), and the tokens
    per player."""
    found = view["series"]
    sections = []
    for index, one in enumerate(found, start=1):
        heading = gettext(N_("No Touch Kraken: token series"))
        if len(found) > 1:
            heading += f" {index}"
        if one["over"]:
            verdict = line(span(gettext(N_("Series won by")) + " "),
                           *players(one["winners"], names))
        else:
            verdict = line(span(gettext(
                N_("The series is still going (nobody has 3 tokens yet).")))
                , size="small")
        rows = [{"label": names.get(seat, "?"), "value": tokens, "seat": seat,
                 "highlight": seat in one["winners"]}
                for seat, tokens in sorted(one["tokens"].items(), key=lambda t: t[1])]
        sections.append({"heading": heading, "blocks": [
            verdict, *bars(rows, gettext(N_("Tokens per player (fewest wins)")))]})
    return sections
