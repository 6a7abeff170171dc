"""The end of the night, pure: tallies and statistics from hand-made event logs.

Every state here comes from the games' own rules: ``rules.start`` (with a seeded rng,
roles then dealt by hand) and ``rules.replay`` of explicit events, built in
bench/builders.py.
"""

import pytest

from bench.builders import (
    CT_MATCHES,
    SK_BIDS,
    SK_WON,
    crazytime_game,
    kraken_all_treasure,
    kraken_game,
    kraken_kraken_first,
    skullking_events,
    skullking_game,
    skullking_hand,
)
from companion.core import charts, registry, stats
from companion.kraken import results as kraken_results
from companion.skullking import rules as sk
from tests import statistics_oracle as oracle

NAMES = {0: "Ann", 1: "Bo", 2: "Cy", 3: "Di"}


# --- one game's result --------------------------------------------------------------

def test_kraken_revealed_makes_the_skeletons_win():
    game = kraken_game(1, ["explorer", "skeleton", "explorer"], kraken_kraken_first())
    result = stats.game_result("kraken", game["setup"], game["state"], registry.installed())
    assert result["finished"] is True
    assert result["outcome"] == "skeletons"
    assert result["reason"] == "kraken"
    assert result["winners"] == [1]
    assert result["roles"] == {0: "explorer", 1: "skeleton", 2: "explorer"}


def test_all_treasure_found_makes_the_explorers_win():
    game = kraken_game(1, ["explorer", "skeleton", "explorer"], kraken_all_treasure())
    result = stats.game_result("kraken", game["setup"], game["state"], registry.installed())
    assert result["winners"] == [0, 2]
    assert result["reason"] == "all_treasure"


def test_an_unfinished_game_has_no_winner_no_score_and_no_roles():
    game = kraken_game(1, ["explorer", "skeleton", "explorer"], kraken_kraken_first()[:1])
    result = stats.game_result("kraken", game["setup"], game["state"], registry.installed())
    assert result == {"kind": "kraken", "finished": False, "players": [0, 1, 2],
                      "winners": [], "scores": {}, "places": {}}


def test_skull_king_final_totals_and_shared_first_place():
    game = skullking_hand()
    result = stats.game_result("skullking", game["setup"], game["state"], registry.installed())
    assert result["scores"] == {0: 10, 1: 30, 2: 30}
    assert result["places"] == {0: 3, 1: 1, 2: 1}
    assert result["winners"] == [1, 2]


def test_skull_king_stopped_after_one_round_is_unfinished():
    setup = sk.start([0, 1, 2], {"way": "custom", "rounds": [1, 2]})
    state = sk.replay(setup, skullking_events(SK_BIDS[:1], SK_WON[:1]))
    result = stats.game_result("skullking", setup, state, registry.installed())
    assert result["finished"] is False
    assert result["scores"] == {}


def test_crazy_time_hours_scores_and_standings_with_the_match_4_tiebreak():
    game = crazytime_game(1)
    result = stats.game_result("crazytime", game["setup"], game["state"], registry.installed())
    assert result["hours"] == {0: 4, 1: 2, 2: 0, 3: 0}
    assert result["last_penalties"] == {0: 5, 1: 5, 2: 1, 3: 1}
    assert result["scores"] == {0: -1, 1: -3, 2: -1, 3: -1}
    assert result["standings"] == [[2, 3], [0], [1]]
    assert result["places"] == {2: 1, 3: 1, 0: 3, 1: 4}
    assert result["winners"] == [2, 3]
    assert [m["winners"] for m in result["matches"]] == [[0], [1], [0], [2, 3]]


def test_crazy_time_in_match_3_is_unfinished():
    game = crazytime_game(1, matches=CT_MATCHES[:3])
    result = stats.game_result("crazytime", game["setup"], game["state"], registry.installed())
    assert result["finished"] is False and result["winners"] == []


# --- the token series -----------------------------------------------------------------

def series_games(losing_roles, series="s1"):
    """One Kraken game per entry; the given team loses it (roles dealt 0: e, 1: s, 2: e)."""
    roles = ["explorer", "skeleton", "explorer"]
    events = {"explorer": kraken_kraken_first(), "skeleton": kraken_all_treasure()}
    return [kraken_game(i + 1, roles, events[losing], series)
            for i, losing in enumerate(losing_roles)]


def test_each_loser_takes_a_token_and_three_tokens_end_the_series():
    # Explorers (0, 2) lose twice, then the Skeleton (1) loses: 0 and 2 have 2 tokens,
    # 1 has 1; a third Explorer loss gives 0 and 2 their third token: 1 wins the series.
    games = series_games(["explorer", "explorer", "skeleton", "explorer"])
    (series,) = kraken_results.series(games)
    assert series["tokens"] == {0: 3, 1: 1, 2: 3}
    assert series["over"] is True
    assert series["winners"] == [1]
    assert series["games"] == [1, 2, 3, 4]


def test_a_series_still_going_has_no_winner():
    (series,) = kraken_results.series(series_games(["explorer", "skeleton"]))
    assert series["tokens"] == {0: 1, 1: 1, 2: 1}
    assert series["over"] is False and series["winners"] == []


def test_an_unfinished_game_gives_no_token():
    games = series_games(["explorer"])
    roles = ["explorer", "skeleton", "explorer"]
    games.append(kraken_game(2, roles, kraken_kraken_first()[:1], "s1"))
    (series,) = kraken_results.series(games)
    assert series["tokens"] == {0: 1, 1: 0, 2: 1}
    assert series["unfinished"] == [2]


def test_a_game_after_the_series_ended_gives_no_token():
    games = series_games(["explorer"] * 4)
    (series,) = kraken_results.series(games)
    assert series["tokens"] == {0: 3, 1: 0, 2: 3}
    assert series["ignored"] == [4]


def test_two_series_are_counted_apart_and_a_lone_game_is_in_none():
    roles = ["explorer", "skeleton", "explorer"]
    games = [kraken_game(1, roles, kraken_kraken_first(), "a"),
             kraken_game(2, roles, kraken_all_treasure(), "b"),
             kraken_game(3, roles, kraken_all_treasure(), None)]
    first, second = kraken_results.series(games)
    assert (first["id"], first["tokens"]) == ("a", {0: 1, 1: 0, 2: 1})
    assert (second["id"], second["tokens"]) == ("b", {0: 0, 1: 1, 2: 0})


# --- tonight's tally ------------------------------------------------------------------

def a_night():
    """Kraken series (3 games, Skeleton seat 1 wins it), Skull King, Crazy Time, and a
    Kraken game left unfinished."""
    roles = ["explorer", "skeleton", "explorer"]
    games = [kraken_game(1, roles, kraken_kraken_first(), "s"),
             kraken_game(2, roles, kraken_kraken_first(), "s"),
             kraken_game(3, roles, kraken_kraken_first(), "s"),
             skullking_hand(4), crazytime_game(5),
             kraken_game(6, roles, kraken_kraken_first()[:1], None)]
    return stats.night_tally(NAMES, games, registry.installed())


def test_the_tally_lists_every_game_in_order_with_its_winners():
    tally = a_night()
    assert [(g["number"], g["kind"], g["winners"]) for g in tally["games"]] == [
        (1, "kraken", [1]), (2, "kraken", [1]), (3, "kraken", [1]),
        (4, "skullking", [1, 2]), (5, "crazytime", [2, 3]), (6, "kraken", [])]
    assert tally["games"][5]["finished"] is False
    assert (tally["finished"], tally["unfinished"]) == (5, 1)


def test_the_tally_counts_games_played_and_won_per_player():
    rows = {p["name"]: p for p in a_night()["players"]}
    # Ann: 3 Kraken + SK + CT played, 0 won. Bo: 3 Kraken won + SK shared first = 4.
    # Cy: SK shared first + CT shared first = 2. Di: only Crazy Time, won it.
    assert [(rows[n]["played"], rows[n]["won"]) for n in NAMES.values()] == [
        (5, 0), (5, 4), (5, 2), (1, 1)]
    assert rows["Ann"]["unfinished"] == 1 and rows["Di"]["unfinished"] == 0
    assert [rows[n]["series_won"] for n in NAMES.values()] == [0, 1, 0, 0]


def test_the_tally_has_the_series_skull_king_totals_and_crazy_time_standings():
    tally = a_night()
    kinds = tally["kinds"]
    assert kinds["kraken"]["series"][0]["tokens"] == {0: 3, 1: 0, 2: 3}
    assert kinds["kraken"]["series"][0]["winners"] == [1]
    assert kinds["skullking"]["games"][0]["scores"] == {0: 10, 1: 30, 2: 30}
    assert kinds["crazytime"]["games"][0]["standings"] == [[2, 3], [0], [1]]
    assert kinds["crazytime"]["games"][0]["hours"] == {0: 4, 1: 2, 2: 0, 3: 0}


def test_a_night_without_games_has_an_empty_tally():
    tally = stats.night_tally(NAMES, [], registry.installed())
    assert tally["games"] == [] and tally["finished"] == 0
    assert [p["played"] for p in tally["players"]] == [0, 0, 0, 0]


# --- statistics across nights ---------------------------------------------------------

def test_names_match_across_nights_ignoring_case_and_spaces():
    assert stats.fold("  ANN ") == stats.fold("ann")
    assert stats.fold("지혜") == stats.fold(" 지혜")


def nights_for_stats():
    roles = ["explorer", "skeleton", "explorer"]
    first = {"names": {0: "Ann", 1: "Bo", 2: "Cy"},
             "games": [skullking_hand(1),
                       kraken_game(2, roles, kraken_all_treasure()),
                       kraken_game(3, roles, kraken_kraken_first())]}
    # Second night: "ann " is Ann again; "Bob" is Bo under another spelling.
    second = {"names": {0: "ann ", 1: "Bob", 2: "Cy", 3: "Di"},
              "games": [skullking_game(1, [0, 1, 2], [1], [{0: 1, 1: 0, 2: 0}],
                                       [{0: 1, 1: 0, 2: 0}]),
                        crazytime_game(2),
                        skullking_game(3, [0, 1, 2], [1, 2], SK_BIDS[:1], SK_WON[:1])
                        | {"state": sk.replay(
                            sk.start([0, 1, 2], {"way": "custom", "rounds": [1, 2]}),
                            skullking_events(SK_BIDS[:1], SK_WON[:1]))}]}
    return [first, second]


def test_statistics_per_player_across_nights():
    players = {p["name"]: p for p in oracle.player_stats(nights_for_stats())}
    ann = players["ann "]  # the latest spelling is shown
    assert ann["nights"] == 2
    assert ann["games"] == {"kraken": 2, "skullking": 2, "crazytime": 1}
    # Ann: Kraken game 2 won (Explorer), SK night 2 won (20 vs 10, 10).
    assert ann["wins"] == {"kraken": 1, "skullking": 1, "crazytime": 0}
    assert ann["sk_best"] == 20 and ann["sk_average"] == 15.0
    assert ann["kraken_roles"] == {"explorer": {"games": 2, "wins": 1},
                                   "skeleton": {"games": 0, "wins": 0}}
    assert ann["ct_matches_won"] == 2
    assert ann["unfinished"] == 1
    assert ann["spellings"] == ["Ann", "ann "]


def test_without_a_merge_two_spellings_are_two_players():
    players = {p["name"]: p for p in oracle.player_stats(nights_for_stats())}
    assert players["Bo"]["nights"] == 1 and players["Bob"]["nights"] == 1
    assert players["Bo"]["kraken_roles"]["skeleton"] == {"games": 2, "wins": 1}


def test_a_merge_counts_two_spellings_as_one_player():
    players = {p["name"]: p for p in oracle.player_stats(nights_for_stats(),
                                                         {"bob": "bo"})}
    assert "Bob" not in players
    bo = players["Bo"]
    assert bo["nights"] == 2
    assert bo["games"]["skullking"] == 2
    # SK: 30 (night 1, shared first) and 10 (night 2) → best 30, average 20.
    assert (bo["sk_best"], bo["sk_average"]) == (30, 20.0)
    assert bo["wins"]["skullking"] == 1
    assert bo["ct_matches_won"] == 1
    assert bo["total_wins"] == 2


def test_a_merge_chain_is_followed_and_a_loop_stops():
    assert stats.resolve("a", {"a": "b", "b": "c"}) == "c"
    assert stats.resolve("a", {"a": "b", "b": "a"}) == "b"


def test_crazy_time_statistics_count_matches_and_the_game_win():
    players = {p["name"]: p for p in oracle.player_stats(nights_for_stats())}
    assert players["Di"]["wins"]["crazytime"] == 1
    assert players["Di"]["ct_matches_won"] == 1
    assert players["Cy"]["ct_matches_won"] == 1
    assert players["Cy"]["sk_best"] == 30


# --- the charts -------------------------------------------------------------------------

def test_bars_are_as_long_as_their_values():
    chart = charts.bar_chart([{"label": "A", "value": 10}, {"label": "B", "value": 5}])
    a, b = chart["bars"]
    assert a["width"] == pytest.approx(2 * b["width"])
    assert a["x"] == b["x"] == chart["zero"] == charts.LABEL_WIDTH


def test_a_negative_bar_grows_left_of_zero():
    chart = charts.bar_chart([{"label": "A", "value": 30}, {"label": "B", "value": -10}])
    a, b = chart["bars"]
    assert b["x"] + b["width"] == pytest.approx(chart["zero"])
    assert a["width"] == pytest.approx(3 * b["width"])


def test_all_zero_bars_do_not_divide_by_zero():
    chart = charts.bar_chart([{"label": "A", "value": 0}])
    assert chart["bars"][0]["width"] == 0
