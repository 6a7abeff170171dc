"""Crazy Time in the recap picture: a finished game's winners and final scores (hours
minus match 4 penalties). Pure: no Flask, no SQL; only finished games are asked for."""

from collections.abc import Callable
from typing import Any

from companion.core.errors import N_
from companion.core.recap import Block, bars, score_rows, winners_line


def game(setup: dict[str, Any], state: dict[str, Any], result: dict[str, Any],
         names: dict[int, str], gettext: Callable[..., str]) -> list[Block]:
    """The winners and each player's final score as bars, highest first."""
    return [winners_line(result["winners"], names, gettext),
            *bars(score_rows(result["scores"], names, result["winners"]),
                  gettext(N_("Final score: hours minus match 4 penalties")))]
