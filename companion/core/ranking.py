"""Places at the end of a game: one rule for every game, screen, tally and export.

Pure: no Flask, no SQL.
"""

from collections.abc import Mapping


def competition_ranks(scores: Mapping[int, float], *, highest_wins: bool = True
                      ) -> dict[int, int]:
    """Each seat's place by standard competition ranking (docs/rules.md#ranking).

    A seat's place is one more than the number of seats that did strictly better, so
    tied seats share a place and the places after them are skipped: scores 50, 50, 20,
    10 give places 1, 1, 3, 4 (never 1, 1, 2, 3). ``highest_wins=False`` ranks the
    lowest score first (fewest penalties, an order's position). Every seat of
    ``scores`` gets a place; an empty mapping gives an empty one.
    """
    sign = 1 if highest_wins else -1
    return {seat: 1 + sum(1 for other in scores.values() if sign * other > sign * score)
            for seat, score in scores.items()}
