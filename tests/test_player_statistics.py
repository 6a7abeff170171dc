"""A player's statistics across nights, that groups ask for (docs/rules.md#statistics):
Skull King's exact-bid rate and zero-bid success, Kraken's win rate per role, head to
head and the leaderboards; on the statistics page and in its CSV files."""

import csv
import io
import re

import pytest

from bench.builders import (
    SK_NIGHT_BIDS,
    SK_NIGHT_ROUNDS,
    SK_NIGHT_WON,
    crazytime_game,
    kraken_all_treasure,
    kraken_game,
    kraken_kraken_first,
    make_night,
    play_evening,
    sk_one_card,
    skullking_game,
)
from companion.core import awards, registry, stats
from companion.kraken import views as kraken_views
from companion.skullking import views as skullking_views
from tests import statistics_oracle as oracle
from tests.pages import text_without_bdi


def cells(columns, player):
    return {str(label): value(player) for label, value in columns}


# --- rates ------------------------------------------------------------------------------

def test_a_rate_is_a_whole_percentage_with_halves_rounded_up():
    assert [awards.percent(h, t) for h, t in ((1, 8), (2, 3), (1, 3), (0, 5), (3, 3))] \
        == [13, 67, 33, 0, 100]
    assert awards.percent(0, 0) is None
    assert awards.record(7, 10) == "7 / 10 (70%)" and awards.record(0, 0) == "—"


# --- Skull King -------------------------------------------------------------------------

def sk_nights():
    """Night 1: the four-round game of bench/builders.py (sk_night_game: Ann 3 exact of 4,
    zeros 3 of 3; Bo 2 of 4, zeros 1 of 2; Cy 2 of 4, zeros 1 of 2). Night 2: one card,
    bids 1, 1, 1, won 0, 1, 0 (only Bo exact), and a game still running whose one scored
    round is exact for all three (zeros made by Ann and Cy)."""
    running = skullking_game(3, [0, 1, 2], [1, 1], [{0: 0, 1: 1, 2: 0}],
                             [{0: 0, 1: 1, 2: 0}])
    return [{"names": {0: "Ann", 1: "Bo", 2: "Cy"},
             "games": [skullking_game(1, [0, 1, 2], SK_NIGHT_ROUNDS, SK_NIGHT_BIDS, SK_NIGHT_WON)]},
            {"names": {0: "Ann", 1: "Bo", 2: "Cy"},
             "games": [sk_one_card(2, {0: 1, 1: 1, 2: 1}, {0: 0, 1: 1, 2: 0}), running]}]


def test_exact_bid_rate_is_rounds_bid_exactly_of_rounds_bid_a_running_games_rounds_too():
    """(The running game's scored round, all three exact, counts too; the figures of
    finished games alone are kept beside, for the page to mark the difference.)"""
    players = {p["name"]: p for p in oracle.player_stats(sk_nights())}
    assert [players[n]["finished_figures"]["sk_exact"] for n in ("Ann", "Bo", "Cy")] == [
        {"hits": 3, "rounds": 5}, {"hits": 3, "rounds": 5}, {"hits": 2, "rounds": 5}]
    assert [players[n]["sk_exact"] for n in ("Ann", "Bo", "Cy")] == [
        {"hits": 4, "rounds": 6}, {"hits": 4, "rounds": 6}, {"hits": 3, "rounds": 6}]
    assert [cells(skullking_views.STAT_COLUMNS, players[n])["Skull King exact bids"]
            for n in ("Ann", "Bo", "Cy")] == ["4 / 6 (67%)", "4 / 6 (67%)", "3 / 6 (50%)"]


def test_zero_bid_success_is_zero_bids_with_no_trick_of_zero_bids():
    players = {p["name"]: p for p in oracle.player_stats(sk_nights())}
    assert [players[n]["finished_figures"]["sk_zero"] for n in ("Ann", "Bo", "Cy")] == [
        {"hits": 3, "rounds": 3}, {"hits": 1, "rounds": 2}, {"hits": 1, "rounds": 2}]
    assert [players[n]["sk_zero"] for n in ("Ann", "Bo", "Cy")] == [
        {"hits": 4, "rounds": 4}, {"hits": 1, "rounds": 2}, {"hits": 2, "rounds": 3}]
    assert [cells(skullking_views.STAT_COLUMNS, players[n])["Skull King zero bids made"]
            for n in ("Ann", "Bo", "Cy")] == ["4 / 4 (100%)", "1 / 2 (50%)", "2 / 3 (67%)"]


def test_a_player_who_never_bid_zero_has_no_zero_bid_rate():
    night = {"names": {0: "Ann", 1: "Bo", 2: "Cy"},
             "games": [sk_one_card(1, {0: 1, 1: 1, 2: 1}, {0: 0, 1: 1, 2: 0})]}
    ann = oracle.player_stats([night])[0]
    assert ann["sk_zero"] == {"hits": 0, "rounds": 0}
    assert cells(skullking_views.STAT_COLUMNS, ann)["Skull King zero bids made"] == "—"


# --- No Touch Kraken --------------------------------------------------------------------

def test_kraken_win_rate_per_role_is_wins_of_games_dealt_that_role():
    # Game 1: Ann and Cy Explorers find the treasure. Game 2: Ann the Skeleton, the Kraken
    # comes up. Game 3: Bo the Skeleton, the Kraken comes up. Game 4 is still running.
    explorers_ac = ["explorer", "skeleton", "explorer"]
    night = {"names": {0: "Ann", 1: "Bo", 2: "Cy"},
             "games": [kraken_game(1, explorers_ac, kraken_all_treasure()),
                       kraken_game(2, ["skeleton", "explorer", "explorer"],
                                   kraken_kraken_first()),
                       kraken_game(3, explorers_ac, kraken_kraken_first()),
                       kraken_game(4, explorers_ac, kraken_all_treasure()[:2])]}
    players = {p["name"]: p for p in oracle.player_stats([night])}
    rates = {name: (cells(kraken_views.STAT_COLUMNS, p)["Kraken wins as Explorer"],
                    cells(kraken_views.STAT_COLUMNS, p)["Kraken wins as Skeleton"])
             for name, p in players.items()}
    assert rates == {"Ann": ("1 / 2 (50%)", "1 / 1 (100%)"),
                     "Bo": ("0 / 1 (0%)", "1 / 2 (50%)"),
                     "Cy": ("1 / 3 (33%)", "—")}


# --- head to head -----------------------------------------------------------------------

def h2h_nights():
    """Night 1: the four-round Skull King game of bench/builders.py (sk_night_game: Ann 50
    first, Bo 30 second). Night 2 ("BO" is Bo): Skull King, one card, Bo alone exact (Bo
    first, Ann second); Kraken, Bo the Skeleton, the Kraken first (Bo wins); Kraken, Ann
    and Bo Explorers find the treasure (both win, same place); a Kraken game still
    running. Night 3: Ann, Cy, Di and "Bob" (Bo after a merge) play Crazy Time; Ann
    places 3rd, Bob 4th."""
    return [
        {"names": {0: "Ann", 1: "Bo", 2: "Cy"},
         "games": [skullking_game(1, [0, 1, 2], SK_NIGHT_ROUNDS, SK_NIGHT_BIDS, SK_NIGHT_WON)]},
        {"names": {0: "Ann", 1: "BO", 2: "Cy"},
         "games": [sk_one_card(1, {0: 1, 1: 1, 2: 1}, {0: 0, 1: 1, 2: 0}),
                   kraken_game(2, ["explorer", "skeleton", "explorer"],
                               kraken_kraken_first()),
                   kraken_game(3, ["explorer", "explorer", "skeleton"],
                               kraken_all_treasure()),
                   kraken_game(4, ["explorer", "skeleton", "explorer"],
                               kraken_kraken_first()[:1])]},
        {"names": {0: "Ann", 1: "Bob", 2: "Cy", 3: "Di"}, "games": [crazytime_game(1)]},
    ]


def test_head_to_head_counts_finished_games_both_played_and_the_wins_of_each():
    found = oracle.head_to_head(h2h_nights(), {}, "ann", "bo")
    assert found == {"games": 4, "wins": [2, 3], "ahead": [1, 2], "level": 1,
                     "kinds": {"skullking": {"games": 2, "wins": [1, 1]},
                               "kraken": {"games": 2, "wins": [1, 2]}}}


def test_head_to_head_follows_the_hosts_merges():
    found = oracle.head_to_head(h2h_nights(), {"bob": "bo"}, "ann", "bo")
    # Crazy Time joins: nobody of the two wins it, Ann finishes ahead (3rd vs 4th).
    assert (found["games"], found["wins"], found["ahead"], found["level"]) == \
        (5, [2, 3], [2, 2], 1)
    assert found["kinds"]["crazytime"] == {"games": 1, "wins": [0, 0]}


def test_head_to_head_the_other_way_round_swaps_the_sides():
    found = oracle.head_to_head(h2h_nights(), {}, "bo", "ann")
    assert (found["wins"], found["ahead"], found["kinds"]["kraken"]["wins"]) == \
        ([3, 2], [2, 1], [2, 1])


def test_players_who_never_met_have_an_empty_head_to_head():
    found = oracle.head_to_head(h2h_nights(), {}, "bo", "di")
    assert found == {"games": 0, "wins": [0, 0], "ahead": [0, 0], "level": 0, "kinds": {}}


# --- the page and the CSV files -----------------------------------------------------------

@pytest.fixture
def evening(app):
    """The evening of bench/builders.py's play_evening: Ann, Bo, Cy play a Kraken series
    of three (Bo, the Skeleton, wins each: the Kraken is the first card), a Skull King
    game (totals 10, 30, 30), all four a Crazy Time game (places: Cy, Di 1st, Ann 3rd, Bo
    4th), and a Kraken game is left running."""
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    night.host.set_cookie("lang", "en")
    play_evening(app, night)
    return night


def test_the_statistics_page_shows_head_to_head_for_two_chosen_players(evening):
    html = text_without_bdi(evening.host.get("/stats?a=ann&b=bo"))
    assert "Finished games played together: 5" in html
    # Ann: no win, ahead once (Crazy Time); Bo: 3 Kraken and the Skull King, ahead 4 times.
    assert ('<td data-label="Games won" class="big">0</td>\n        '
            '<td data-label="Finished ahead">1</td>') in html
    assert ('<td data-label="Games won" class="big">4</td>\n        '
            '<td data-label="Finished ahead">4</td>') in html
    assert '<td data-label="No Touch Kraken: won / played">3 / 3</td>' in html
    assert "Same place: 0" in html


@pytest.mark.parametrize("query", ["a=ann&b=ann", "a=ann&b=nobody", "a=ann"])
def test_a_head_to_head_needs_two_different_known_players(evening, query):
    html = text_without_bdi(evening.host.get(f"/stats?{query}"))
    assert "Finished games played together" not in html
    assert 'class="notice error" role="alert"' in html


def read_csv(response):
    assert response.status_code == 200 and response.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(text_without_bdi(response).lstrip("\ufeff"))))


def test_the_statistics_csv_has_a_row_per_player_with_the_new_figures(evening):
    rows = read_csv(evening.host.get("/stats.csv"))
    assert rows[0] == [
        "player", "nights",
        "No Touch Kraken: games won", "No Touch Kraken: games played",
        "Skull King: games won", "Skull King: games played",
        "Crazy Time: games won", "Crazy Time: games played",
        "Kraken wins as Explorer", "Kraken wins as Skeleton", "Kraken token series won",
        "Skull King best", "Skull King average", "Skull King exact bids",
        "Skull King zero bids made", "Crazy Time matches won"]
    # Skull King rounds: 1 card, bids 1, 0, 0, won 1, 0, 0; 2 cards, bids 2, 0, 1, won 1,
    # 0, 1. Ann exact 1 of 2, no zero bid; Bo 2 of 2, zeros 2 of 2; Cy 2 of 2, zeros 1 of 1.
    assert rows[1:] == [
        ["Ann", "1", "0", "3", "0", "1", "0", "1", "0 / 3 (0%)", "—", "0", "10", "10.0",
         "1 / 2 (50%)", "—", "2"],
        ["Bo", "1", "3", "3", "1", "1", "0", "1", "—", "3 / 3 (100%)", "1", "30", "30.0",
         "2 / 2 (100%)", "2 / 2 (100%)", "1"],
        ["Cy", "1", "0", "3", "1", "1", "1", "1", "0 / 3 (0%)", "—", "0", "30", "30.0",
         "2 / 2 (100%)", "1 / 1 (100%)", "1"],
        ["Di", "1", "0", "0", "0", "0", "1", "1", "—", "—", "0", "—", "—", "—", "—", "1"],
    ]


def test_the_head_to_head_csv_has_every_pair_who_met(evening):
    rows = read_csv(evening.host.get("/stats/head-to-head.csv"))
    assert rows[0] == ["player", "opponent", "games together", "player's wins",
                       "opponent's wins", "player ahead", "opponent ahead", "same place"]
    found = {(r[0], r[1]): r[2:] for r in rows[1:]}
    assert found[("Ann", "Bo")] == ["5", "0", "4", "1", "4", "0"]
    # Bo and Cy: Kraken 3 (Bo), Skull King shared first (both win, same place), Crazy Time
    # (Cy 1st, Bo 4th).
    assert found[("Bo", "Cy")] == ["5", "4", "2", "3", "1", "1"]
    assert found[("Ann", "Di")] == ["1", "0", "1", "0", "1", "0"]
    assert len(found) == 6


def test_the_statistics_csv_files_are_for_host_devices_only(client, evening):
    assert client.get("/stats.csv").status_code == 403
    assert client.get("/stats/head-to-head.csv").status_code == 403


# --- the leaderboards ---------------------------------------------------------------------

def test_the_leaderboards_sort_each_games_players_by_wins(evening):
    boards = stats.leaderboards([
        {"key": "ann", "name": "Ann", "wins": {"kraken": 1, "skullking": 0, "crazytime": 0},
         "games": {"kraken": 4, "skullking": 1, "crazytime": 0}, "best": {"skullking": 30}},
        {"key": "bo", "name": "Bo", "wins": {"kraken": 2, "skullking": 1, "crazytime": 0},
         "games": {"kraken": 3, "skullking": 1, "crazytime": 0}, "best": {"skullking": 50}},
        {"key": "cy", "name": "Cy", "wins": {"kraken": 1, "skullking": 0, "crazytime": 0},
         "games": {"kraken": 2, "skullking": 0, "crazytime": 0}, "best": {}},
    ], registry.installed())
    # Kraken: Bo's 2 wins first; Ann and Cy 1 each, Cy's 1 of 2 before Ann's 1 of 4.
    assert [(r["name"], r["wins"], r["rate"]) for r in boards["kraken"]] == [
        ("Bo", 2, 67), ("Cy", 1, 50), ("Ann", 1, 25)]
    # Skull King: only the two who played, with their best scores.
    assert [(r["name"], r["best"]) for r in boards["skullking"]] == [("Bo", 50), ("Ann", 30)]
    assert boards["crazytime"] == []


def test_the_statistics_page_has_a_leaderboard_a_game_in_player_colours(evening):
    html = text_without_bdi(evening.host.get("/stats"))
    assert "Leaderboards" in html
    kraken = html[html.index('data-board="kraken"'):html.index('data-board="skullking"')]
    # Bo won the three Kraken games; Ann and Cy none.
    names = re.findall(r'<th scope="row"><span class="player pc-\w+">(\w+)</span>', kraken)
    assert names[0] == "Bo" and sorted(names[1:]) == ["Ann", "Cy"]
    assert "No Touch Kraken: games won per player" in kraken  # the chart's visible title
    assert '<figcaption class="chart-title">' in kraken
    skull = html[html.index('data-board="skullking"'):html.index('data-board="crazytime"')]
    assert "Best score" in skull and ">30</td>" in skull  # Bo and Cy's final 30
    assert "Best score" not in kraken
    # each bar in its player's colour
    assert re.search(r'<rect class="bar pc-\w+ win"', kraken)


def test_the_table_page_links_the_statistics(evening):
    html = text_without_bdi(evening.host.get(evening.url))
    assert 'href="/stats"' in html
