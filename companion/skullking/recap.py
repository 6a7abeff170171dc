"""Skull King in the recap picture: a finished game's winners, edition and scoring, the
running totals round by round, each line ending in its final total. Pure: no Flask, no SQL.

Only finished games are asked for, whose every bid has been revealed."""

from collections.abc import Callable
from typing import Any

from companion.core.errors import N_
from companion.core.recap import Block, line, span, winners_line
from companion.skullking.results import EDITION_LABELS, SCORING_LABELS


def running_totals(setup: dict[str, Any], state: dict[str, Any], names: dict[int, str]
                   ) -> Block:
    """Each player's total after each scored round, from 0 before the first; a line's
    label is its player's name and final total."""
    series = {seat: [0] for seat in setup["players"]}
    for rnd in state["rounds"]:
        if rnd["totals"] is None:
            break
        for seat, values in series.items():
            values.append(rnd["totals"][str(seat)])
    leaders = set(state["leader"])
    return {"kind": "lines", "series": [
        {"seat": seat, "name": f"{names.get(seat, '?')} {values[-1]}", "values": values,
         "leader": seat in leaders} for seat, values in series.items()]}


def game(setup: dict[str, Any], state: dict[str, Any], result: dict[str, Any],
         names: dict[int, str], gettext: Callable[..., str]) -> list[Block]:
    """Winners, the edition and scoring, and the running totals' chart (each line ends
    with its player's name and final total)."""
    board = " · ".join((gettext(EDITION_LABELS[setup["edition"]]),
                        gettext(SCORING_LABELS[setup["scoring"]])))
    return [winners_line(result["winners"], names, gettext),
            line(span(board), size="small"),
            line(span(gettext(N_("Totals by round"))), size="caption"),
            running_totals(setup, state, names)]

