"""The statistics a group reads: one table of every player, a row each in their colour, a
column a figure under its game, blank where a player has none (no "—", no "0 / 0"), a
column nobody has a figure in left out, games not finished marked beside the games played,
and each column's title a link that sorts by it (docs/rules.md#statistics)."""

import re

import pytest

from bench.builders import crazytime_game, make_night, play, play_evening, skullking_game
from companion.tally.statistics import sort_key
from tests.pages import text_without_bdi


@pytest.fixture
def evening(app):
    """Ann, Bo, Cy, Dee and Eve: a Kraken series of three, a Skull King game (Ann, Bo,
    Cy), a Crazy Time game (Ann to Dee), a Kraken game left running (Ann, Bo, Cy); Eve
    plays nothing."""
    night = make_night(app, ["Ann", "Bo", "Cy", "Dee", "Eve"])
    night.host.set_cookie("lang", "en")
    play_evening(app, night)
    return night


def table(night, query=""):
    html = text_without_bdi(night.host.get(f"/stats{query}"))
    return html[html.index('<table class="score tally-table tally-stats'):].split("</table>")[0]


def rows(html):
    """Per row, its player's name and its cells by column id."""
    found = []
    for row in re.findall(r"<tr data-player=.*?</tr>", html, re.S):
        name = re.search(r'<span class="player[^"]*">([^<]*)</span>', row).group(1)
        cells = dict(re.findall(r'<td data-column="([^"]+)">(.*?)</td>', row, re.S))
        found.append((name, {k: re.sub(r"<[^>]+>", "", v).strip() for k, v in cells.items()}))
    return found


def test_one_row_a_player_in_their_colour_and_blank_where_they_have_no_figure(evening):
    html = table(evening)
    found = dict(rows(html))
    assert list(found) == ["Ann", "Bo", "Cy", "Dee", "Eve"]
    assert len(re.findall(r'<span class="player pc-\w+">', html)) == 5
    assert "—" not in html and "0 / 0" not in html
    # Eve sat at no game: only her nights
    assert {k: v for k, v in found["Eve"].items() if v} == {"nights": "1"}
    # Dee played Crazy Time only: nothing of Kraken or Skull King
    assert found["Dee"]["crazytime-played"] == "1"
    assert all(not v for k, v in found["Dee"].items() if k.startswith(("kraken", "skullking")))


def test_a_game_not_finished_is_marked_beside_the_games_played(evening):
    found = dict(rows(table(evening)))
    assert found["Ann"]["kraken-played"] == "3 +1 running"
    assert found["Dee"]["kraken-played"] == ""  # not in the running game
    assert "games not finished" in text_without_bdi(evening.host.get("/stats"))


def test_a_column_nobody_has_a_figure_in_is_left_out(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    html = table(night)
    assert 'data-column="nights"' in html
    assert "skullking" not in html and "crazytime" not in html  # no game played yet


def test_a_column_title_sorts_by_it_most_first_then_least_first(evening):
    html = table(evening, "?sort=crazytime-won&order=desc")
    order = [name for name, _cells in rows(html)]
    won = {name: cells["crazytime-won"] for name, cells in rows(html)}
    assert order[-1] == "Eve"  # a blank is last whichever way
    firsts = [won[n] for n in order if won[n]]
    assert firsts == sorted(firsts, reverse=True)
    assert re.search(r'data-column="crazytime-won" aria-sort="descending"', html)
    # the same title now sorts least first
    assert re.search(r'href="/stats\?sort=crazytime-won&amp;order=asc#s-players"', html)
    ascending = [cells["crazytime-won"] for _n, cells in rows(
        table(evening, "?sort=crazytime-won&order=asc")) if cells["crazytime-won"]]
    assert ascending == sorted(ascending)


def test_a_figure_sorts_by_its_rate_then_its_value():
    assert sort_key("7 / 10 (70%)") == 70
    assert sort_key("-12.5") == -12.5
    assert sort_key("—") is None and sort_key("") is None


def test_a_figure_a_running_game_can_say_counts_it_and_says_so(app):
    """Skull King with two of four rounds scored (Ann exact twice, Bo and Cy once each)
    and Crazy Time after match 1 (Dee took none of the 12 penalties and won it): nobody
    has finished a game, yet the figures those games can say are there, marked "with
    running"; their best and average, which only an end gives, stay blank."""
    night = make_night(app, ["Ann", "Bo", "Cy", "Dee"])
    night.host.set_cookie("lang", "en")
    play(app, night, skullking_game(1, [0, 1, 2], [1, 2, 3, 1],
                                    [{0: 0, 1: 0, 2: 1}, {0: 0, 1: 1, 2: 1}],
                                    [{0: 0, 1: 0, 2: 1}, {0: 0, 1: 2, 2: 0}]))
    play(app, night, crazytime_game(2, [{0: 4, 1: 4, 2: 4, 3: 0}]))  # 12 tokens
    found = dict(rows(table(night)))
    exact = {n: found[n]["skullking-2"] for n in ("Ann", "Bo", "Cy")}
    assert exact == {"Ann": "2 / 2 (100%) with running", "Bo": "1 / 2 (50%) with running",
                     "Cy": "1 / 2 (50%) with running"}
    assert found["Ann"]["skullking-played"] == "0 +1 running"
    assert "skullking-0" not in found["Ann"]  # a best total: no game has ended
    assert found["Dee"]["crazytime-0"] == "1 with running"
    assert found["Ann"]["crazytime-0"] == "0"  # in the game, no match won: nothing to mark
