"""No Touch Kraken rules (docs/rules.md#kraken), one test per rule, for every player count 3-8."""

import json
import random

import pytest

from companion.core.errors import RuleError
from companion.kraken import rules
from companion.kraken.rules import (
    CARD_KINDS,
    CARDS_PER_ROUND,
    ROLE_NAMES,
    ROUNDS,
    SPECIAL_NAMES,
    describe,
    outcome,
    replay,
    series_tokens,
    setup,
    start,
    verdict,
)
from tests.refusing import refuses

COUNTS = [3, 4, 5, 6, 7, 8]

# docs/rules.md#kraken-setup ("Setup by player count"), row by row:
# players: (Explorer cards, Skeleton cards, unused role cards, Empty, Treasure, Kraken)
TABLE = {
    3: (3, 2, 2, 11, 3, 1),
    4: (3, 2, 1, 15, 4, 1),
    5: (4, 2, 1, 19, 5, 1),
    6: (4, 2, 0, 23, 6, 1),
    7: (5, 3, 1, 27, 7, 1),
    8: (6, 3, 1, 31, 8, 1),
}

# Greedy Captain's Curse treasure pile (= players): (least, most) Treasures and Curses.
CURSE_PILE = {
    3: ((2, 2), (1, 1)),
    4: ((2, 3), (1, 2)),
    5: ((2, 4), (1, 3)),
    6: ((3, 5), (1, 3)),
    7: ((4, 6), (1, 3)),
    8: ((5, 7), (1, 3)),
}


# --- helpers ------------------------------------------------------------------------


def game(n, seed=1, **options):
    return start(list(range(n)), options, rng=random.Random(seed))


def with_roles(setup_, explorers):
    """The same game with the first ``explorers`` seats Explorers and the rest Skeletons."""
    seats = setup_["players"]
    roles = {str(s): "explorer" if i < explorers else "skeleton" for i, s in enumerate(seats)}
    return {**setup_, "roles": roles}


def marker(seat):
    return {"type": "marker", "data": {"seat": seat}, "seat": None}


def reveal(seat, card, special=None):
    data = {"seat": seat, "card": card}
    if special is not None:
        data["special"] = special
    return {"type": "reveal", "data": data, "seat": None}


def auto(setup_, cards, first=0):
    """Events for a legal game: the marker starts at ``first``; each holder reveals a card
    of the next seat clockwise that still has one, and that card is the next of ``cards``."""
    events = [marker(first)]
    for card in cards:
        state = replay(setup_, events)
        seats = state["players"]
        holder = state["marker"]
        start_at = seats.index(holder)
        for step in range(1, len(seats) + 1):
            target = seats[(start_at + step) % len(seats)]
            if target != holder and state["cards_in_front"][str(target)] > 0:
                break
        events.append(reveal(target, card))
    return events


def empties(k):
    return ["empty"] * k


# --- setup (docs/rules.md#kraken-setup) -----------------------------------------------


@pytest.mark.parametrize("n", COUNTS)
def test_setup_matches_the_table_row_for_each_count(n):
    deck = setup(n)
    got = (deck["explorers"], deck["skeletons"], deck["unused_roles"],
           deck["empty"], deck["treasure"], deck["kraken"])
    assert got == TABLE[n]


@pytest.mark.parametrize("n", COUNTS)
def test_deck_deals_five_cards_to_each_player(n):
    deck = setup(n)
    assert deck["cards_each"] == 5
    assert deck["empty"] + deck["treasure"] + deck["kraken"] == 5 * n == deck["total"]


@pytest.mark.parametrize("n", COUNTS)
def test_treasure_count_always_equals_player_count(n):
    assert setup(n)["treasure"] == n
    assert setup(n)["treasure_pile"] == n


@pytest.mark.parametrize("n", COUNTS)
def test_role_cards_are_players_plus_unused(n):
    deck = setup(n)
    assert deck["explorers"] + deck["skeletons"] == n + deck["unused_roles"]


def test_six_players_use_23_empty_boxes():
    assert setup(6)["empty"] == 23


@pytest.mark.parametrize("n", COUNTS)
def test_specials_replace_five_empty_boxes(n):
    plain, deck = setup(n), setup(n, specials=True)
    assert deck["special"] == 5
    assert deck["empty"] == plain["empty"] - 5
    assert deck["empty"] + deck["special"] + deck["treasure"] + deck["kraken"] == 5 * n
    assert "special" not in plain


def test_specials_at_four_players_match_the_rulebook_example():
    deck = setup(4, specials=True)
    assert (deck["special"], deck["empty"], deck["treasure"], deck["kraken"]) == (5, 10, 4, 1)


@pytest.mark.parametrize("n", COUNTS)
def test_curse_treasure_pile_split_bounds(n):
    deck = setup(n, curse=True)
    (t_low, t_high), (c_low, c_high) = CURSE_PILE[n]
    assert deck["treasure_pile"] == n
    assert (deck["treasure_min"], deck["treasure"]) == (t_low, t_high)
    assert (deck["curse_min"], deck["curse"]) == (c_low, c_high)
    assert deck["empty"] == TABLE[n][3]


@pytest.mark.parametrize("bad", [0, 1, 2, 9, 10, -3])
def test_setup_refuses_counts_outside_3_to_8(bad):
    with pytest.raises(ValueError):
        setup(bad)


@pytest.mark.parametrize("bad", ["5", 5.0, True, None])
def test_setup_refuses_a_count_that_is_not_a_whole_number(bad):
    with pytest.raises(ValueError):
        setup(bad)


# --- outcome (docs/rules.md#kraken-end) -----------------------------------------------


@pytest.mark.parametrize("n", COUNTS)
def test_every_treasure_revealed_explorers_win(n):
    assert outcome(n, ["treasure"] * (n - 1)) is None
    assert outcome(n, ["treasure"] * n) == "explorers"
    assert outcome(n, ["empty", "treasure"] * n) == "explorers"


@pytest.mark.parametrize("n", COUNTS)
def test_kraken_revealed_skeletons_win(n):
    assert outcome(n, ["kraken"]) == "skeletons"
    assert outcome(n, ["treasure"] * (n - 1) + ["kraken"]) == "skeletons"


@pytest.mark.parametrize("n", COUNTS)
def test_round_four_over_skeletons_win(n):
    cards = ["treasure"] * (n - 1) + empties(3 * n + 1)
    assert len(cards) == 4 * n
    assert outcome(n, cards[:-1]) is None
    assert outcome(n, cards) == "skeletons"
    assert verdict(n, cards)["reason"] == "rounds_over"


@pytest.mark.parametrize("n", COUNTS)
def test_last_treasure_on_the_last_action_of_round_four_is_an_explorer_win(n):
    cards = ["treasure"] * (n - 1) + empties(3 * n) + ["treasure"]
    assert len(cards) == 4 * n
    assert verdict(n, cards)["reason"] == "all_treasure"
    assert outcome(n, cards) == "explorers"


@pytest.mark.parametrize("n", COUNTS)
def test_game_goes_on_with_empty_boxes(n):
    assert outcome(n, []) is None
    assert outcome(n, empties(4 * n - 1)) is None


@pytest.mark.parametrize("n", COUNTS)
def test_no_reveal_after_the_end(n):
    for ended in (["kraken"], ["treasure"] * n, ["treasure"] * (n - 1) + empties(3 * n + 1)):
        with pytest.raises(ValueError, match="over"):
            outcome(n, ended + ["empty"])


@pytest.mark.parametrize("n", COUNTS)
def test_no_more_empty_boxes_than_the_deck_holds(n):
    limit = TABLE[n][3]
    assert outcome(n, empties(limit)) is None
    with pytest.raises(ValueError, match=f"only {limit} Empty"):
        outcome(n, empties(limit + 1))


@pytest.mark.parametrize("n", COUNTS)
def test_specials_leave_fewer_empty_boxes(n):
    limit = TABLE[n][3] - 5
    assert outcome(n, empties(limit), specials=True) is None
    with pytest.raises(ValueError, match=f"only {limit} Empty"):
        outcome(n, empties(limit + 1), specials=True)


@pytest.mark.parametrize("card", ["curse", "special", "gold", "", None, 3])
def test_card_not_in_play_is_refused(card):
    with pytest.raises(ValueError):
        outcome(5, ["empty", card])


def test_curse_refused_without_the_curse_option_but_allowed_with_it():
    with pytest.raises(ValueError, match="Curse is not in this game"):
        outcome(5, ["treasure", "curse"])
    assert outcome(5, ["treasure", "curse"], curse=True) is None


def test_special_refused_without_the_specials_option_but_allowed_with_it():
    with pytest.raises(ValueError, match="Special cards are not in this game"):
        outcome(5, ["special"])
    assert outcome(5, ["special"], specials=True) is None


@pytest.mark.parametrize("n", COUNTS)
def test_at_most_five_specials(n):
    assert outcome(n, ["special"] * 5, specials=True) is None
    with pytest.raises(ValueError, match="only 5 Special"):
        outcome(n, ["special"] * 6, specials=True)


def test_outcome_raises_rule_error_which_is_a_value_error():
    with refuses("The game is already over"):
        outcome(4, ["kraken", "kraken"])
    assert issubclass(RuleError, ValueError)


@pytest.mark.parametrize("bad", [2, 9])
def test_outcome_refuses_counts_outside_3_to_8(bad):
    with pytest.raises(ValueError):
        outcome(bad, [])


# 3 players only: all Explorers and the Kraken → everybody loses (and generally: a win for
# a team with no player at the table is a loss for everyone).


def test_three_explorers_and_the_kraken_nobody_wins():
    assert outcome(3, ["kraken"], explorers=3) == "nobody"
    assert verdict(3, ["kraken"], explorers=3)["team"] == "skeletons"


def test_three_players_with_a_skeleton_and_the_kraken_skeletons_win():
    assert outcome(3, ["kraken"], explorers=2) == "skeletons"
    assert outcome(3, ["kraken"], explorers=1) == "skeletons"
    assert outcome(3, ["kraken"]) == "skeletons"


def test_three_explorers_and_round_four_over_nobody_wins():
    cards = ["treasure", "treasure"] + empties(10)
    assert outcome(3, cards, explorers=3) == "nobody"


def test_three_explorers_and_a_curse_first_nobody_wins():
    assert outcome(3, ["curse"], explorers=3, curse=True) == "nobody"


def test_three_explorers_finding_all_treasure_win():
    assert outcome(3, ["treasure"] * 3, explorers=3) == "explorers"


@pytest.mark.parametrize("n,low,high", [(3, 1, 3), (4, 2, 3), (5, 3, 4), (6, 4, 4),
                                        (7, 4, 5), (8, 5, 6)])
def test_explorers_at_the_table_must_be_possible_from_the_role_cards(n, low, high):
    assert rules.explorer_range(n) == (low, high)
    assert outcome(n, ["kraken"], explorers=low) == "skeletons"
    assert outcome(n, ["kraken"], explorers=high) == ("nobody" if high == n else "skeletons")
    for bad in (low - 1, high + 1):
        with pytest.raises(ValueError, match="Explorers"):
            outcome(n, ["kraken"], explorers=bad)


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
def test_above_three_players_a_skeleton_is_always_at_the_table(n):
    _, high = rules.explorer_range(n)
    assert high < n


# --- Expansion 1: the Greedy Captain's Curse -----------------------------------------


@pytest.mark.parametrize("n", COUNTS)
def test_curse_before_any_treasure_skeletons_win_at_once(n):
    assert outcome(n, ["curse"], curse=True) == "skeletons"
    assert outcome(n, empties(3) + ["curse"], curse=True) == "skeletons"
    assert verdict(n, ["curse"], curse=True)["reason"] == "curse_first"


@pytest.mark.parametrize("n", COUNTS)
def test_curse_after_a_treasure_counts_as_treasure(n):
    max_curses = CURSE_PILE[n][1][1]
    cards = ["treasure"] + ["curse"] * max_curses + ["treasure"] * (n - 1 - max_curses)
    assert len(cards) == n
    assert outcome(n, cards[:-1], curse=True) is None
    assert outcome(n, cards, curse=True) == "explorers"


@pytest.mark.parametrize("n", COUNTS)
def test_with_the_curse_treasures_alone_never_fill_the_pile(n):
    most = CURSE_PILE[n][0][1]
    assert most == min(8, n - 1)
    assert outcome(n, ["treasure"] * most, curse=True) is None
    with pytest.raises(ValueError, match=f"at most {most} Treasures"):
        outcome(n, ["treasure"] * (most + 1), curse=True)


@pytest.mark.parametrize("n", COUNTS)
def test_with_the_curse_no_more_curses_than_the_pile_can_hold(n):
    most = CURSE_PILE[n][1][1]
    assert most == min(3, n - 2)
    with pytest.raises(ValueError, match=f"at most {most} Greedy"):
        outcome(n, ["treasure"] + ["curse"] * (most + 1), curse=True)


def test_with_the_curse_six_players_win_on_the_sixth_pile_card():
    assert outcome(6, ["treasure", "curse", "curse", "treasure", "curse"], curse=True) is None
    assert outcome(6, ["treasure", "curse", "curse", "treasure", "curse", "treasure"],
                   curse=True) == "explorers"


# --- start: options and the role deal ------------------------------------------------


@pytest.mark.parametrize("n", COUNTS)
def test_roles_dealt_match_the_role_cards_for_the_count(n):
    explorers, skeletons, unused = TABLE[n][:3]
    for seed in range(20):
        g = game(n, seed)
        dealt = list(g["roles"].values())
        assert len(dealt) == n
        assert len(g["unused_roles"]) == unused
        everything = dealt + g["unused_roles"]
        assert everything.count("explorer") == explorers
        assert everything.count("skeleton") == skeletons
        assert set(dealt) <= set(ROLE_NAMES)


def test_six_players_always_deal_four_explorers_and_two_skeletons():
    for seed in range(20):
        dealt = list(game(6, seed)["roles"].values())
        assert (dealt.count("explorer"), dealt.count("skeleton")) == (4, 2)


def test_roles_are_keyed_by_seat_as_strings():
    g = start([2, 5, 7, 9], {}, rng=random.Random(3))
    assert sorted(g["roles"]) == ["2", "5", "7", "9"]


def test_a_seeded_deal_is_deterministic_and_seeds_differ():
    assert game(7, 42)["roles"] == game(7, 42)["roles"]
    deals = {json.dumps(game(7, seed)["roles"], sort_keys=True) for seed in range(30)}
    assert len(deals) > 5


def test_the_default_deal_uses_the_cryptographic_system_random(monkeypatch):
    made = []

    class Fake(random.Random):
        def __init__(self):
            made.append(self)
            super().__init__(0)

    monkeypatch.setattr(rules.secrets, "SystemRandom", Fake)
    g = start([0, 1, 2, 3], {})
    assert len(made) == 1
    assert g["roles"] == start([0, 1, 2, 3], {}, rng=random.Random(0))["roles"]


@pytest.mark.parametrize("n", COUNTS)
def test_start_stores_players_options_and_deck(n):
    g = game(n, curse=True, specials=True, series="night-1")
    assert g["players"] == list(range(n))
    assert g["options"] == {"curse": True, "specials": True, "clockwise": False,
                            "series": "night-1"}
    assert g["deck"] == setup(n, specials=True, curse=True)
    json.dumps(g)


def test_start_puts_seats_in_clockwise_order():
    assert start([4, 0, 2], {}, rng=random.Random(1))["players"] == [0, 2, 4]


def test_options_default_off():
    assert game(5)["options"] == {"curse": False, "specials": False, "clockwise": False,
                                  "series": None}


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_clockwise_rule_is_for_eight_players_only(n):
    with pytest.raises(RuleError, match="8 players only"):
        game(n, clockwise=True)


def test_clockwise_rule_allowed_at_eight():
    assert game(8, clockwise=True)["options"]["clockwise"] is True


@pytest.mark.parametrize("options, message", [
    ({"turbo": True}, "There is no option called"),
    ({"curse": "yes"}, "is either on or off"), ({"specials": 1}, "is either on or off"),
    ({"series": 5}, "That is not a token series"), ({"series": ""}, "That is not a token series"),
    ({"series": "x" * 101}, "That is not a token series")])
def test_bad_options_are_refused(options, message):
    with refuses(message):
        game(5, **options)


@pytest.mark.parametrize("players, message", [
    ([0, 1], "is for 3 to 8 players"), ([0, 1, 2, 3, 4, 5, 6, 7, 8], "is for 3 to 8 players"),
    ([0, 1, 1, 2], "Each seat can play only once"), ([0, 1, "2"], "A seat must be a seat number"),
    ([0, 1, -1], "A seat must be a seat number"), ([0, 1, True], "A seat must be a seat number"),
    ("012", "The players must be a list of seats")])
def test_bad_player_lists_are_refused(players, message):
    with refuses(message):
        start(players, {}, rng=random.Random(1))


# --- replay: the action marker and reveals (docs/rules.md#kraken-play) ----------------


def test_before_anything_the_table_is_at_round_one_action_one():
    state = replay(game(5), [])
    assert (state["round"], state["action"], state["actions_per_round"]) == (1, 1, 5)
    assert state["marker"] is None
    assert state["cards_in_front"] == {str(s): 5 for s in range(5)}
    assert state["finished"] is False and state["outcome"] is None


def test_a_reveal_needs_a_marker_holder_first():
    with pytest.raises(RuleError, match="action marker"):
        replay(game(4), [reveal(1, "empty")])


def test_marker_may_be_corrected_before_the_first_reveal():
    state = replay(game(4), [marker(0), marker(2)])
    assert state["marker"] == 2
    state = replay(game(4), [marker(0), marker(2), reveal(0, "empty")])
    assert state["marker"] == 0


def test_marker_cannot_be_set_after_the_first_reveal():
    with pytest.raises(RuleError, match="before the first reveal"):
        replay(game(4), [marker(0), reveal(1, "empty"), marker(3)])


@pytest.mark.parametrize("seat", [5, -1, "1", None, True])
def test_marker_must_go_to_a_seat_in_the_game(seat):
    with pytest.raises(RuleError, match="not playing"):
        replay(game(5), [marker(seat)])


@pytest.mark.parametrize("n", COUNTS)
def test_the_marker_holder_cannot_reveal_their_own_card(n):
    with pytest.raises(RuleError, match="own card"):
        replay(game(n), [marker(1), reveal(1, "empty")])
    with pytest.raises(RuleError, match="own card"):
        replay(game(n), [marker(0), reveal(2, "empty"), reveal(2, "empty")])


@pytest.mark.parametrize("n", COUNTS)
def test_the_revealed_cards_owner_takes_the_marker(n):
    state = replay(game(n), [marker(0), reveal(2, "empty")])
    assert state["marker"] == 2
    state = replay(game(n), [marker(0), reveal(2, "empty"), reveal(0, "empty")])
    assert state["marker"] == 0


def test_a_seat_not_in_the_game_cannot_be_revealed():
    with pytest.raises(RuleError, match="not playing"):
        replay(game(4), [marker(0), reveal(4, "empty")])


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
def test_each_reveal_takes_a_card_from_in_front_of_its_owner(n):
    state = replay(game(n), [marker(0), reveal(1, "empty"), reveal(2, "empty"),
                             reveal(1, "empty")])
    assert state["cards_in_front"]["1"] == 3
    assert state["cards_in_front"]["2"] == 4
    assert state["cards_in_front"]["0"] == 5
    assert sum(state["cards_in_front"].values()) == 5 * n - 3


def test_at_three_players_a_reveal_takes_a_card_until_the_round_ends():
    state = replay(game(3), [marker(0), reveal(1, "empty"), reveal(0, "empty")])
    assert state["cards_in_front"] == {"0": 4, "1": 4, "2": 5}
    state = replay(game(3), [marker(0), reveal(1, "empty"), reveal(0, "empty"),
                             reveal(1, "empty")])
    assert state["cards_in_front"] == {"0": 4, "1": 4, "2": 4}


@pytest.mark.parametrize("n", COUNTS)
def test_rounds_end_after_players_times_round_reveals_and_deal_5_4_3_2(n):
    setup_ = game(n)
    cards = empties(3 * n)
    for r in range(1, ROUNDS):
        before = replay(setup_, auto(setup_, cards[: r * n - 1]))
        assert (before["round"], before["action"]) == (r, n)
        assert before["round_over_deal"] is None
        after = replay(setup_, auto(setup_, cards[: r * n]))
        assert (after["round"], after["action"]) == (r + 1, 1)
        assert after["round_over_deal"] == CARDS_PER_ROUND[r] == 5 - r
        assert after["cards_in_front"] == {str(s): 5 - r for s in range(n)}
    next_one = replay(setup_, auto(setup_, cards + ["empty"]))
    assert next_one["round_over_deal"] is None
    assert (next_one["round"], next_one["action"]) == (4, 2)


@pytest.mark.parametrize("n", COUNTS)
def test_the_marker_holder_starts_the_next_round(n):
    setup_ = game(n)
    events = auto(setup_, empties(n))
    last_revealed = events[-1]["data"]["seat"]
    state = replay(setup_, events)
    assert state["marker"] == last_revealed
    with pytest.raises(RuleError, match="own card"):
        replay(setup_, events + [reveal(last_revealed, "empty")])


@pytest.mark.parametrize("n", COUNTS)
def test_action_counter_runs_1_to_n_in_each_round(n):
    setup_ = game(n)
    events = auto(setup_, empties(2 * n))
    actions = [r["action"] for r in replay(setup_, events)["reveals"]]
    rounds = [r["round"] for r in replay(setup_, events)["reveals"]]
    assert actions == list(range(1, n + 1)) * 2
    assert rounds == [1] * n + [2] * n


@pytest.mark.parametrize("n", [5, 6, 7, 8])
def test_a_player_with_no_face_down_card_left_cannot_be_revealed(n):
    setup_ = game(n)
    events = auto(setup_, empties(3 * n))
    holder = replay(setup_, events)["marker"]
    a, b = [s for s in range(n) if s != holder][:2]
    events += [reveal(a, "empty"), reveal(b, "empty"), reveal(a, "empty"),
               reveal(b, "empty")]
    state = replay(setup_, events)
    assert state["round"] == 4
    assert state["cards_in_front"][str(a)] == 0
    with pytest.raises(RuleError, match="no face-down card"):
        replay(setup_, events + [reveal(a, "empty")])


def test_a_card_not_in_play_cannot_be_revealed():
    with pytest.raises(RuleError, match="Curse is not in this game"):
        replay(game(5), [marker(0), reveal(1, "curse")])
    with pytest.raises(RuleError, match="Special cards are not in this game"):
        replay(game(5), [marker(0), reveal(1, "special", "lost_treasure")])
    with pytest.raises(RuleError, match="no such"):
        replay(game(5), [marker(0), reveal(1, "gold")])
    with pytest.raises(RuleError, match="which card"):
        replay(game(5), [marker(0), {"type": "reveal", "data": {"seat": 1}, "seat": None}])


@pytest.mark.parametrize("n", COUNTS)
def test_no_more_empty_boxes_revealed_than_the_deck_holds(n):
    setup_ = game(n, specials=True)
    limit = TABLE[n][3] - 5
    events = auto(setup_, empties(limit))
    assert replay(setup_, events)["hidden"]["empty"] == 0
    holder = replay(setup_, events)["marker"]
    with pytest.raises(RuleError, match=f"only {limit} Empty"):
        replay(setup_, events + [reveal((holder + 1) % n, "empty")])


def test_each_special_card_is_revealed_at_most_once():
    setup_ = game(5, specials=True)
    events = [marker(0), reveal(1, "special", "lost_treasure")]
    assert replay(setup_, events)["special_revealed"] == ["lost_treasure"]
    with pytest.raises(RuleError, match="already been revealed"):
        replay(setup_, events + [reveal(2, "special", "lost_treasure")])


def test_only_five_of_the_six_specials_can_turn_up():
    setup_ = game(5, specials=True)
    events = [marker(0)]
    for i, name in enumerate(SPECIAL_NAMES[:5]):
        events.append(reveal(1 + i % 2, "special", name))
    state = replay(setup_, events)
    assert state["special_revealed"] == list(SPECIAL_NAMES[:5])
    assert state["hidden"]["special"] == 0
    with pytest.raises(RuleError, match="only 5 Special"):
        replay(setup_, events + [reveal(2, "special", SPECIAL_NAMES[5])])


@pytest.mark.parametrize("name", [None, "", "kraken_hug", 3])
def test_a_special_reveal_names_a_real_special_card(name):
    data = {"seat": 1, "card": "special"}
    if name is not None:
        data["special"] = name
    with pytest.raises(RuleError, match="which Special"):
        replay(game(5, specials=True), [marker(0), {"type": "reveal", "data": data,
                                                    "seat": None}])


def test_only_a_special_card_has_a_name():
    with pytest.raises(RuleError, match="Only a Special"):
        replay(game(5, specials=True), [marker(0), reveal(1, "empty", "lost_treasure")])


def test_a_phone_cannot_record_table_events():
    assert rules.SEAT_EVENTS == frozenset()
    assert rules.HOST_EVENTS == {"marker", "reveal", "special_marker", "special_reveal",
                                 "special_role", "special_count", "note"}
    with pytest.raises(RuleError, match="host"):
        replay(game(4), [{"type": "marker", "data": {"seat": 0}, "seat": 0}])


@pytest.mark.parametrize("event", [
    {"type": "shuffle", "data": {}, "seat": None},
    {"type": "marker", "data": {"seat": 0, "extra": 1}, "seat": None},
    {"type": "marker", "data": "0", "seat": None},
])
def test_events_the_rules_do_not_know_are_refused(event):
    with refuses("This event is not understood"):
        replay(game(4), [event])


# --- replay: the end of the game -----------------------------------------------------


def seats_with(setup_, role):
    return [s for s in setup_["players"] if setup_["roles"][str(s)] == role]


@pytest.mark.parametrize("n", COUNTS)
def test_kraken_ends_the_game_skeletons_win_and_every_role_is_shown(n):
    setup_ = game(n)
    state = replay(setup_, auto(setup_, ["empty", "kraken"]))
    assert state["finished"] is True
    assert (state["outcome"], state["reason"]) == ("skeletons", "kraken")
    assert state["winners"] == seats_with(setup_, "skeleton")
    assert state["losers"] == seats_with(setup_, "explorer")
    assert state["roles"] == setup_["roles"]
    assert state["unused_roles"] == setup_["unused_roles"]
    assert len(state["unused_roles"]) == TABLE[n][2]


@pytest.mark.parametrize("n", COUNTS)
def test_all_treasure_found_explorers_win(n):
    setup_ = game(n)
    events = auto(setup_, ["treasure", "empty"] * n)
    state = replay(setup_, events[:-1])
    assert (state["outcome"], state["reason"]) == ("explorers", "all_treasure")
    assert state["winners"] == seats_with(setup_, "explorer")
    assert state["losers"] == seats_with(setup_, "skeleton")
    assert state["treasures_to_find"] == 0
    assert len(state["reveals"]) == 2 * n - 1


@pytest.mark.parametrize("n", COUNTS)
def test_round_four_over_ends_the_game_in_round_four_action_n(n):
    setup_ = game(n)
    state = replay(setup_, auto(setup_, ["treasure"] * (n - 1) + empties(3 * n + 1)))
    assert (state["outcome"], state["reason"]) == ("skeletons", "rounds_over")
    assert (state["round"], state["action"]) == (4, n)
    assert state["round_over_deal"] is None
    assert len(state["reveals"]) == 4 * n
    assert sum(state["cards_in_front"].values()) == n


@pytest.mark.parametrize("n", COUNTS)
def test_nothing_is_recorded_after_the_game_is_over(n):
    setup_ = game(n)
    events = auto(setup_, ["kraken"])
    with pytest.raises(RuleError, match="over"):
        replay(setup_, events + [reveal(0, "empty")])
    with pytest.raises(RuleError, match="over"):
        replay(setup_, events + [marker(0)])


def test_three_explorers_and_the_kraken_everybody_loses():
    setup_ = with_roles(game(3), explorers=3)
    state = replay(setup_, auto(setup_, ["kraken"]))
    assert (state["outcome"], state["reason"]) == ("nobody", "kraken")
    assert state["winners"] == []
    assert state["losers"] == [0, 1, 2]


def test_three_players_with_a_skeleton_the_kraken_is_a_skeleton_win():
    setup_ = with_roles(game(3), explorers=2)
    state = replay(setup_, auto(setup_, ["kraken"]))
    assert state["outcome"] == "skeletons"
    assert (state["winners"], state["losers"]) == ([2], [0, 1])


@pytest.mark.parametrize("n", COUNTS)
def test_curse_first_ends_the_game_for_the_skeletons(n):
    setup_ = game(n, curse=True)
    state = replay(setup_, auto(setup_, ["empty", "curse"]))
    assert (state["outcome"], state["reason"]) == ("skeletons", "curse_first")
    assert state["winners"] == seats_with(setup_, "skeleton")


@pytest.mark.parametrize("n", COUNTS)
def test_with_the_curse_explorers_win_when_the_whole_pile_is_revealed(n):
    setup_ = game(n, curse=True)
    pile = ["treasure", "curse"] + ["treasure"] * (n - 2)
    state = replay(setup_, auto(setup_, pile[:-1]))
    assert state["treasures_to_find"] == 1 and not state["finished"]
    state = replay(setup_, auto(setup_, pile))
    assert (state["outcome"], state["reason"]) == ("explorers", "all_treasure")


@pytest.mark.parametrize("n", COUNTS)
def test_undoing_the_final_reveal_brings_the_game_back(n):
    setup_ = game(n)
    events = auto(setup_, ["empty", "kraken"])
    state = replay(setup_, events[:-1])
    assert state["finished"] is False
    assert state["outcome"] is None and state["winners"] == [] and state["losers"] == []
    assert state["roles"] is None and state["unused_roles"] is None


@pytest.mark.parametrize("n", COUNTS)
def test_no_role_appears_in_the_state_while_the_game_goes_on(n):
    setup_ = game(n, curse=True, specials=True)
    text = json.dumps(replay(setup_, auto(setup_, ["treasure", "empty", "curse"])))
    assert "explorer" not in text and "skeleton" not in text


# --- replay: counts at a glance ------------------------------------------------------


@pytest.mark.parametrize("n", COUNTS)
def test_revealed_and_hidden_counts_add_up_to_the_deck(n):
    setup_ = game(n, specials=True)
    cards = ["treasure", "empty", "special", "empty", "treasure"]
    events = [marker(0)]
    names = iter(SPECIAL_NAMES)
    for i, card in enumerate(cards):
        seat = 1 + i % 2
        events.append(reveal(seat, card, next(names) if card == "special" else None))
    state = replay(setup_, events)
    assert state["revealed"] == {"empty": 2, "treasure": 2, "kraken": 0, "special": 1}
    assert state["hidden"] == {"empty": TABLE[n][3] - 5 - 2, "treasure": n - 2,
                               "kraken": 1, "special": 4}
    assert state["hidden_range"]["treasure"] == [n - 2, n - 2]
    assert state["treasures_to_find"] == n - 2


def test_with_the_curse_the_hidden_split_is_a_range():
    setup_ = game(6, curse=True)
    state = replay(setup_, [marker(0)])
    assert state["hidden"] == {"empty": 23, "kraken": 1, "treasure_pile": 6}
    assert state["hidden_range"]["treasure"] == [3, 5]
    assert state["hidden_range"]["curse"] == [1, 3]
    state = replay(setup_, auto(setup_, ["treasure", "curse", "curse"]))
    # 1 Treasure and 2 Curses seen: the pile held 3 or 4 Treasures and 3 or 2 Curses.
    assert state["hidden"]["treasure_pile"] == 3
    assert state["hidden_range"]["treasure"] == [2, 3]
    assert state["hidden_range"]["curse"] == [0, 1]
    assert state["treasures_to_find"] == 3


def test_with_the_curse_at_three_players_the_pile_is_known():
    state = replay(game(3, curse=True), [marker(0)])
    assert state["hidden_range"] == {"empty": [11, 11], "kraken": [1, 1],
                                     "treasure": [2, 2], "curse": [1, 1]}


def test_the_state_is_plain_json():
    setup_ = game(5, curse=True, specials=True)
    state = replay(setup_, auto(setup_, ["treasure", "kraken"]))
    assert json.loads(json.dumps(state)) == state


# --- the 8-player rule: everyone acts once, clockwise --------------------------------


def test_clockwise_the_marker_passes_to_the_next_seat_whoever_was_revealed():
    setup_ = game(8, clockwise=True)
    state = replay(setup_, [marker(3), reveal(6, "empty")])
    assert state["marker"] == 4
    state = replay(setup_, [marker(7), reveal(2, "empty")])
    assert state["marker"] == 0


def test_clockwise_each_player_acts_exactly_once_each_round_from_the_same_start():
    setup_ = game(8, clockwise=True)
    events = [marker(5)]
    actors = []
    for _ in range(3 * 8):
        holder = replay(setup_, events)["marker"]
        actors.append(holder)
        events.append(reveal((holder + 3) % 8, "empty"))
    expected_round = [5, 6, 7, 0, 1, 2, 3, 4]
    assert actors == expected_round * 3
    assert replay(setup_, events)["marker"] == 5


def test_clockwise_the_actor_still_cannot_reveal_their_own_card():
    with pytest.raises(RuleError, match="own card"):
        replay(game(8, clockwise=True), [marker(0), reveal(3, "empty"), reveal(1, "empty")])


def test_without_the_rule_eight_players_pass_the_marker_to_the_revealed_seat():
    state = replay(game(8), [marker(3), reveal(6, "empty")])
    assert state["marker"] == 6


# --- a careful paper tally: a real deck, dealt and played at random ------------------


def deal_deck(n, rng, curse, specials):
    deck = setup(n, curse=curse, specials=specials)
    cards = ["empty"] * deck["empty"] + ["kraken"]
    if curse:
        pool = ["treasure"] * 6 + ["curse"] * 2
        rng.shuffle(pool)
        cards += ["treasure", "treasure", "curse"] + pool[: n - 3]
    else:
        cards += ["treasure"] * n
    if specials:
        cards += ["special"] * 5
    rng.shuffle(cards)
    return cards


def paper_end(n, seen, card, count, curse):
    if card == "kraken" or (card == "curse" and seen["treasure"] == 0):
        return "skeletons"
    if seen["treasure"] + seen.get("curse", 0) == n:
        return "explorers"
    return "skeletons" if count == 4 * n else None


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("curse", [False, True])
@pytest.mark.parametrize("specials", [False, True])
def test_random_real_games_match_a_paper_tally(n, curse, specials):
    for seed in range(15):
        rng = random.Random(seed * 100 + n)
        setup_ = game(n, seed, curse=curse, specials=specials)
        face_down = deal_deck(n, rng, curse, specials)
        hands = {s: [face_down.pop() for _ in range(5)] for s in range(n)}
        specials_left = list(SPECIAL_NAMES)
        rng.shuffle(specials_left)
        specials_left = specials_left[:5]
        holder = rng.randrange(n)
        events = [marker(holder)]
        seen = dict.fromkeys(rules.kinds_in_play(curse=curse, specials=specials), 0)
        result = None
        for count in range(1, 4 * n + 1):
            targets = [s for s in range(n) if s != holder and hands[s]]
            target = rng.choice(targets)
            card = hands[target].pop(rng.randrange(len(hands[target])))
            name = specials_left.pop() if card == "special" else None
            events.append(reveal(target, card, name))
            seen[card] += 1
            state = replay(setup_, events)
            assert state["revealed"] == seen
            result = paper_end(n, seen, card, count, curse)
            if result:
                break
            holder = target
            if count % n == 0:
                rest = [c for s in range(n) for c in hands[s]]
                rng.shuffle(rest)
                each = len(rest) // n
                assert each == 5 - count // n == state["round_over_deal"]
                hands = {s: rest[s * each:(s + 1) * each] for s in range(n)}
            assert state["cards_in_front"] == {str(s): len(hands[s]) for s in range(n)}
            left = [c for s in range(n) for c in hands[s]]
            for kind in ("empty", "kraken", "special"):
                if kind in state["hidden"]:
                    assert state["hidden"][kind] == left.count(kind)
            low, high = state["hidden_range"]["treasure"]
            assert low <= left.count("treasure") <= high
            assert state["treasures_to_find"] == left.count("treasure") + left.count("curse")
            assert state["marker"] == holder
        explorers = list(setup_["roles"].values()).count("explorer")
        if result == "skeletons" and explorers == n:
            result = "nobody"
        assert state["outcome"] == result
        assert outcome(n, [e["data"]["card"] for e in events[1:]], explorers=explorers,
                       curse=curse, specials=specials) == result


# --- history lines -------------------------------------------------------------------


def test_marker_history_line_names_the_seat():
    message, params = describe(marker(3))
    assert message % params == "3 takes the action marker first."


@pytest.mark.parametrize("card", [k for k in CARD_KINDS if k != "special"])
def test_reveal_history_line_says_whose_card_and_what_card(card):
    message, params = describe(reveal(4, card))
    line = message % params
    assert line.startswith("4's card is revealed")
    assert rules.CARD_LABELS[card].split()[-1].lower() in line.lower()


@pytest.mark.parametrize("name", SPECIAL_NAMES)
def test_special_history_line_names_the_special_card(name):
    message, params = describe(reveal(1, "special", name))
    assert rules.SPECIAL_LABELS[name] in message % params


def test_history_lines_never_mention_a_role():
    events = [marker(0)] + [reveal(1, c) for c in CARD_KINDS]
    events += [reveal(2, "special", name) for name in SPECIAL_NAMES]
    for event in events:
        message, params = describe(event)
        line = message % params
        # The one Special card whose name says "Skeleton" is a card, not a role.
        line = line.replace(rules.SPECIAL_LABELS["skeletons_grasp"], "").lower()
        assert "explorer" not in line and "skeleton" not in line
        assert set(params) <= {"seat"}


# --- the token series (docs/rules.md#kraken-series) -----------------------------------


def test_each_loser_takes_a_token():
    result = series_tokens([0, 1, 2, 3, 4], [{"losers": [1, 3]}, {"losers": [0, 1, 2]}])
    assert result["tokens"] == {"0": 1, "1": 2, "2": 1, "3": 1, "4": 0}
    assert result["over"] is False and result["winners"] == []
    assert result["games"] == 2


def test_when_nobody_wins_everybody_takes_a_token():
    setup_ = with_roles(game(3), explorers=3)
    state = replay(setup_, auto(setup_, ["kraken"]))
    result = series_tokens([0, 1, 2], [{"losers": state["losers"]}])
    assert result["tokens"] == {"0": 1, "1": 1, "2": 1}


def test_the_series_ends_when_someone_has_three_tokens_and_the_fewest_win():
    games = [{"losers": [0, 1]}, {"losers": [0, 2]}, {"losers": [0, 3]}]
    result = series_tokens([0, 1, 2, 3, 4], games)
    assert result["tokens"] == {"0": 3, "1": 1, "2": 1, "3": 1, "4": 0}
    assert result["over"] is True
    assert result["winners"] == [4]


def test_players_tied_on_the_fewest_tokens_share_the_series_win():
    games = [{"losers": [0, 1]}, {"losers": [0, 2]}, {"losers": [0, 1]}]
    result = series_tokens([0, 1, 2, 3, 4], games)
    assert result["tokens"] == {"0": 3, "1": 2, "2": 1, "3": 0, "4": 0}
    assert result["winners"] == [3, 4]


def test_everyone_reaching_three_together_all_share_the_win():
    games = [{"losers": [0, 1, 2]}] * 3
    result = series_tokens([0, 1, 2], games)
    assert result["over"] is True and result["winners"] == [0, 1, 2]


def test_a_series_with_no_game_yet_has_no_tokens():
    assert series_tokens([0, 1, 2], []) == {"tokens": {"0": 0, "1": 0, "2": 0},
                                            "over": False, "winners": [], "games": 0}


def test_no_game_after_the_series_is_over():
    games = [{"losers": [0]}] * 3
    with pytest.raises(RuleError, match="already over"):
        series_tokens([0, 1, 2], games + [{"losers": [1]}])


@pytest.mark.parametrize("game_, message", [
    ({"losers": []}, "always has a losing team"), ({"losers": [7]}, "not playing in this series"),
    ({"losers": [1, 1]}, "one token per game"), ({}, "always has a losing team"),
    ({"losers": "1"}, "always has a losing team")])
def test_a_series_game_needs_real_losers_from_the_table(game_, message):
    with refuses(message):
        series_tokens([0, 1, 2, 3], [game_])


@pytest.mark.parametrize("n", COUNTS)
def test_a_series_of_real_games_gives_tokens_to_the_losing_team(n):
    results = []
    for seed in range(10):
        setup_ = game(n, seed)
        state = replay(setup_, auto(setup_, ["kraken"]))
        results.append({"losers": state["losers"]})
        tally = series_tokens(list(range(n)), results)
        if tally["over"]:
            break
    for seat in range(n):
        assert tally["tokens"][str(seat)] == sum(seat in r["losers"] for r in results)
    assert tally["over"] is True
    assert max(tally["tokens"].values()) == 3
