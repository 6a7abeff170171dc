"""One ranking rule for every game, screen, tally and export: standard competition ranking,
1, 1, 3 (docs/rules.md#ranking), from companion.core.ranking.competition_ranks."""

import re

import pytest

from bench.builders import crazytime_game, kraken_game, kraken_kraken_first, make_night, play
from companion.core import registry, stats
from companion.core.ranking import competition_ranks
from tests.pages import text_without_bdi, unmarked

# --- the rule --------------------------------------------------------------------------


def test_tied_players_share_a_place_and_the_next_places_are_skipped():
    assert competition_ranks({0: 50, 1: 50, 2: 20, 3: 10}) == {0: 1, 1: 1, 2: 3, 3: 4}


def test_a_tie_below_first_skips_the_place_after_it():
    assert competition_ranks({0: 9, 1: 5, 2: 5, 3: 1}) == {0: 1, 1: 2, 2: 2, 3: 4}


def test_the_lowest_can_win():
    assert competition_ranks({0: 3, 1: 0, 2: 0, 3: 7}, highest_wins=False) == {
        0: 3, 1: 1, 2: 1, 3: 4}


@pytest.mark.parametrize("scores, places", [
    ({}, {}), ({4: -2}, {4: 1}), ({0: 1, 1: 1, 2: 1}, {0: 1, 1: 1, 2: 1}),
    ({0: 0.5, 1: -3, 2: 0.5}, {0: 1, 1: 3, 2: 1}),
])
def test_every_seat_gets_a_place(scores, places):
    assert competition_ranks(scores) == places


def test_the_kraken_winning_team_shares_first_and_the_others_the_place_after_them():
    game = kraken_game(1, ["explorer", "skeleton", "explorer", "explorer", "skeleton"],
                       kraken_kraken_first())
    result = stats.game_result("kraken", game["setup"], game["state"], registry.installed())
    assert result["winners"] == [1, 4]
    assert result["places"] == {0: 3, 1: 1, 2: 3, 3: 3, 4: 1}


# --- the same places everywhere: a Crazy Time game with two players sharing first -------


@pytest.fixture
def tied(app):
    """Crazy Time: Cy and Di share first (score -1, one match-4 penalty each), Ann is
    third (-1, five penalties), Bo fourth (-3): places 1, 1, 3, 4."""
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    phones = [night.phone(p) for p in range(4)]
    url = f"{night.url}/g/{play(app, night, crazytime_game(1)).number}"
    return night, phones, url


EXPECTED = [("1", "Cy"), ("1", "Di"), ("3", "Ann"), ("4", "Bo")]


def places_in_standings(html):
    """(place, name) per row of Crazy Time's final standings table, as shown."""
    html = unmarked(html)
    rows = re.findall(r'<tr data-place="(\d)" data-seat="\d">\s*<td[^>]*>(\d)[^<]*</td>\s*'
                      r'<th scope="row">([^<]*)</th>', html)
    assert all(marked == shown for marked, shown, _ in rows)
    return [(shown, name) for _, shown, name in rows]


def test_the_game_screen_shows_one_one_three_four(tied):
    night, _, url = tied
    assert places_in_standings(text_without_bdi(night.host.get(url))) == EXPECTED


def test_every_phone_shows_one_one_three_four(tied):
    _, phones, _ = tied
    for phone in phones:
        assert places_in_standings(text_without_bdi(phone.get("/me"))) == EXPECTED


def test_the_tally_shows_one_one_three_four(tied):
    night, phones, _ = tied
    for client in (night.host, phones[0]):
        url = f"{night.url}/tally" if client is night.host else "/me/tally"
        html = text_without_bdi(client.get(url))
        # a phone's own row is marked (<tr class="me …">)
        rows = re.findall(r'<tr[^>]*><td[^>]*>(\d)</td><th scope="row">([^<]*)</th>',
                          unmarked(html))
        assert rows == EXPECTED


def test_the_csv_has_the_same_places(tied):
    night, _, _ = tied
    rows = text_without_bdi(night.host.get(f"{night.url}/export.csv")).lstrip("\ufeff").splitlines()
    assert rows[0].endswith(",place")
    places = {row.split(",")[3]: row.split(",")[-1] for row in rows[1:]}
    assert places == {name: place for place, name in EXPECTED}
