"""Tonight's awards (docs/rules.md#awards), from hand-made logs replayed by the games'
own rules: who earns each one, with what number, how a tie is shared, and that a game
still running gives none."""

from fractions import Fraction

from bench.builders import (
    CT_MATCHES,
    SK_NIGHT_BIDS,
    SK_NIGHT_ROUNDS,
    SK_NIGHT_WON,
    crazytime_game,
    kraken_all_treasure,
    kraken_game,
    kraken_kraken_first,
    sk_night_game,
    sk_one_card,
    skullking_game,
)
from companion.core import awards, registry, stats

NAMES = {0: "Ann", 1: "Bo", 2: "Cy", 3: "Di"}


def awards_of(games, names=NAMES):
    return {a["id"]: (a["seats"], a["params"])
            for a in stats.night_awards(names, games, registry.installed())}


# --- Skull King -------------------------------------------------------------------------

def test_the_sharpshooter_has_the_most_exact_bids_of_the_night():
    assert awards_of([sk_night_game()])["sharpshooter"] == ([0], {"count": 3})


def test_the_perfect_zero_streak_is_the_longest_run_of_zeros_made():
    assert awards_of([sk_night_game()])["zero-streak"] == ([0], {"count": 3})


def test_exact_bids_add_up_over_the_nights_skull_king_games():
    # Game 2, one card: bids 1, 1, 1, won 1, 0, 0 → only Ann exact: Ann 4, Bo 2, Cy 2.
    second = sk_one_card(2, {0: 1, 1: 1, 2: 1}, {0: 1, 1: 0, 2: 0})
    assert awards_of([sk_night_game(), second])["sharpshooter"] == ([0], {"count": 4})


def test_a_tie_of_half_the_table_shares_the_sharpshooter():
    # Four players, one card: bids 1, 1, 0, 1, won 1, 0, 0, 0 → Ann and Cy exact once,
    # Bo and Di never: 2 of 4 share it, which is not most of the table.
    game = skullking_game(1, [0, 1, 2, 3], [1], [{0: 1, 1: 1, 2: 0, 3: 1}],
                          [{0: 1, 1: 0, 2: 0, 3: 0}])
    assert awards_of([game])["sharpshooter"] == ([0, 2], {"count": 1})


def test_an_award_most_of_the_table_would_share_is_not_given():
    # Game 2, one card: bids 1, 1, 1, won 0, 1, 0 → only Bo exact: Ann 3, Bo 3, Cy 2.
    # Ann and Bo would share the Sharpshooter: 2 of the 3 players, most of the table.
    second = sk_one_card(2, {0: 1, 1: 1, 2: 1}, {0: 0, 1: 1, 2: 0})
    assert "sharpshooter" not in awards_of([sk_night_game(), second])


def test_a_zero_streak_stays_inside_one_game():
    # Two one-card games where Bo bids 0 and takes nothing: 1 round in a row each, never
    # 2 across games, so nobody reaches the 2 rounds the award asks.
    games = [sk_one_card(n, {0: 1, 1: 0, 2: 0}, {0: 1, 1: 0, 2: 0}) for n in (1, 2)]
    assert "zero-streak" not in awards_of(games)


def test_nobody_stands_out_when_every_player_ties():
    # Bids 1, 0, 0, won 1, 0, 0: everybody exact once, so no Sharpshooter; the zeros are
    # single rounds, so no streak either.
    assert awards_of([sk_one_card(1, {0: 1, 1: 0, 2: 0}, {0: 1, 1: 0, 2: 0})]) == {}


def test_a_skull_king_game_still_running_gives_no_award():
    # Rounds 1–3 of the night's game are scored, round 4 is not: Ann's 3 exact bids and
    # her streak of 3 are in its log, but the game is not over.
    running = skullking_game(2, [0, 1, 2], SK_NIGHT_ROUNDS, SK_NIGHT_BIDS[:3], SK_NIGHT_WON[:3])
    assert not running["state"]["finished"]
    assert awards_of([running]) == {}
    # Beside a finished game it changes nothing.
    assert awards_of([sk_night_game(1), running]) == awards_of([sk_night_game(1)])


# --- No Touch Kraken --------------------------------------------------------------------

def kraken_of_four():
    """Four players: Ann reveals a Treasure of Bo's, Bo the Kraken of Cy's. Ann and Di
    had none of their cards revealed."""
    return kraken_game(1, ["explorer", "skeleton", "explorer", "explorer"],
                       [{"type": "marker", "data": {"seat": 0}, "seat": None},
                        {"type": "reveal", "data": {"seat": 1, "card": "treasure",
                                                    "special": None}, "seat": None},
                        {"type": "reveal", "data": {"seat": 2, "card": "kraken",
                                                    "special": None}, "seat": None}])


def test_the_survivor_had_the_fewest_own_cards_revealed():
    game = kraken_of_four()
    assert game["state"]["finished"]
    assert awards_of([game])["survivor"] == ([0, 3], {"rate": "0"})


def test_no_survivor_when_two_of_three_had_no_card_revealed():
    # The Kraken is the first card revealed, Bo's: Ann and Cy had none revealed, so the
    # award would go to most of the table.
    game = kraken_game(1, ["explorer", "skeleton", "explorer"], kraken_kraken_first())
    assert "survivor" not in awards_of([game])


def test_the_survivor_counts_cards_revealed_per_game_played():
    # Game 1 (Ann, Bo, Cy): each has one card revealed. Game 2 (Ann, Bo, Cy, Di): Ann
    # reveals Bo's Treasure, Bo Di's Kraken. Per game: Ann and Cy 1 in 2 = 0.5; Bo 2 in
    # 2 = 1; Di 1 in 1 = 1.
    first = kraken_game(1, ["explorer", "skeleton", "explorer"], kraken_all_treasure())
    second = kraken_game(2, ["explorer", "skeleton", "explorer", "skeleton"],
                         [{"type": "marker", "data": {"seat": 0}, "seat": None},
                          {"type": "reveal", "data": {"seat": 1, "card": "treasure",
                                                      "special": None}, "seat": None},
                          {"type": "reveal", "data": {"seat": 3, "card": "kraken",
                                                      "special": None}, "seat": None}])
    assert second["state"]["finished"]
    assert awards_of([first, second])["survivor"] == ([0, 2], {"rate": "0.5"})


def test_no_survivor_when_every_player_had_as_many_cards_revealed():
    game = kraken_game(1, ["explorer", "skeleton", "explorer"], kraken_all_treasure())
    assert "survivor" not in awards_of([game])


def test_a_kraken_game_still_running_gives_no_award():
    running = kraken_game(1, ["explorer", "skeleton", "explorer"], kraken_all_treasure()[:2])
    assert not running["state"]["finished"]
    assert awards_of([running]) == {}


# --- Crazy Time -------------------------------------------------------------------------

def test_the_penalty_dodger_took_the_fewest_penalties_in_all_four_matches():
    # CT_MATCHES: Ann 0 + 4 + 0 + 5 = 9; Bo 4 + 0 + 4 + 5 = 13; Cy and Di 4 + 4 + 4 + 1 = 13.
    assert awards_of([crazytime_game(1)])["dodger"] == ([0], {"rate": "9"})


def test_the_penalty_dodger_is_counted_per_game_over_the_night():
    # Game 2: Ann 16, Bo 12, Cy 12, Di 8. Over both: Ann 25, Bo 25, Cy 25, Di 21 in 2
    # games, so Di dodged best with 10.5 a game.
    second = crazytime_game(2, matches=[{0: 4, 1: 0, 2: 4, 3: 4}, {0: 4, 1: 4, 2: 0, 3: 4},
                                        {0: 4, 1: 4, 2: 4, 3: 0}, {0: 4, 1: 4, 2: 4, 3: 0}])
    assert second["state"]["finished"]
    assert awards_of([crazytime_game(1), second])["dodger"] == ([3], {"rate": "10.5"})


def test_a_crazy_time_game_in_match_3_gives_no_award():
    assert awards_of([crazytime_game(1, matches=CT_MATCHES[:3])]) == {}


# --- the night --------------------------------------------------------------------------

def test_the_tally_lists_each_games_awards_in_the_order_of_the_games_menu():
    night = [sk_night_game(1), {**kraken_of_four(), "number": 2}, crazytime_game(3)]
    tally = stats.night_tally(NAMES, night, registry.installed())
    assert [(a["kind"], a["id"], a["seats"]) for a in tally["awards"]] == [
        ("kraken", "survivor", [0, 3]),
        ("skullking", "sharpshooter", [0]),
        ("skullking", "zero-streak", [0]),
        ("crazytime", "dodger", [0]),
    ]


def test_a_night_of_running_games_has_no_award():
    night = [kraken_game(1, ["explorer", "skeleton", "explorer"], kraken_all_treasure()[:2]),
             skullking_game(2, [0, 1, 2], SK_NIGHT_ROUNDS, SK_NIGHT_BIDS[:3], SK_NIGHT_WON[:3])]
    assert stats.night_tally(NAMES, night, registry.installed())["awards"] == []


# --- the shared rules of an award -------------------------------------------------------

def test_leaders_share_a_tie_and_give_nothing_when_most_of_the_table_ties():
    assert awards.leaders({0: 3, 1: 3, 2: 1, 3: 0}) == [0, 1]  # half: a tie shares
    assert awards.leaders({0: 3, 1: 3, 2: 1}) == []  # 2 of 3: most of the table
    assert awards.leaders({0: 3, 1: 3, 2: 3, 3: 1, 4: 0}) == []  # 3 of 5
    assert awards.leaders({0: 3, 1: 3, 2: 1, 3: 0, 4: 0}) == [0, 1]  # 2 of 5
    assert awards.leaders({0: 2, 1: 2}) == []
    assert awards.leaders({0: 2, 1: 1}) == [0]
    assert awards.leaders({0: 2}) == [0]  # a player alone stands out alone
    assert awards.leaders({0: Fraction(1, 2), 1: 1}, most=False) == [0]
    assert awards.leaders({0: 1, 1: 0}, at_least=2) == []
    assert awards.leaders({}) == []


def test_a_rate_per_game_is_shown_to_one_decimal_halves_up():
    assert [awards.decimal(v) for v in (2, Fraction(3, 2), Fraction(4, 3), Fraction(1, 4))] \
        == ["2", "1.5", "1.3", "0.3"]
