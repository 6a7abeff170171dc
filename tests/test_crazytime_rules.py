"""Crazy Time rules (docs/rules.md#crazy-time), one test per rule."""

import json
import random

import pytest

from companion.core.errors import RuleError
from companion.crazytime import rules
from companion.crazytime.rules import (
    deal,
    describe,
    final_ranking,
    hours_for_match,
    laws_for,
    match_winners,
    penalty_tokens,
    replay,
    start,
)
from tests.crazytime_log import (
    FIVE,
    FOUR,
    NEXT,
    after_match_1,
    ev,
    full_game,
    law,
    learn,
    penalty,
    play_match,
    setup,
)
from tests.refusing import refuses

# --- Penalty tokens per match (docs/rules.md#crazy-time-matches) ----------------------


@pytest.mark.parametrize("match", [1, 2, 3, 4])
def test_purple_side_has_12_penalty_tokens_every_match(match):
    assert penalty_tokens(match, "purple") == 12
    assert penalty_tokens(match) == 12


@pytest.mark.parametrize("match, tokens", [(1, 6), (2, 8), (3, 10), (4, 12)])
def test_blue_side_has_6_8_10_12_penalty_tokens(match, tokens):
    assert penalty_tokens(match, "blue") == tokens


@pytest.mark.parametrize("match, side, message", [
    (0, "purple", "There is no match"), (5, "blue", "There is no match"),
    ("1", "purple", "There is no match"), (True, "purple", "There is no match"),
    (1, "red", "The board side must be"), (2, None, "The board side must be")])
def test_no_tokens_for_a_match_or_side_that_does_not_exist(match, side, message):
    with refuses(message):
        penalty_tokens(match, side)
    with pytest.raises(ValueError):
        penalty_tokens(match, side)


# --- Winners of a match (docs/rules.md#crazy-time-matches) ----------------------------


def test_the_player_with_fewest_penalties_wins_the_match():
    assert match_winners({"Ann": 3, "Bo": 1, "Cy": 4, "Di": 4}) == (["Bo"], True)


def test_tied_fewest_penalties_all_win_in_input_order():
    assert match_winners({"Di": 0, "Bo": 5, "Ann": 0, "Cy": 1, "Ed": 6}) == (["Di", "Ann"], True)


def test_winners_are_rewarded_when_exactly_two_players_stay():
    assert match_winners({0: 1, 1: 1, 2: 5, 3: 5}) == ([0, 1], True)


def test_nobody_is_rewarded_when_three_of_four_tie_so_only_one_would_stay():
    assert match_winners({0: 2, 1: 2, 2: 2, 3: 6}) == ([0, 1, 2], False)


def test_nobody_is_rewarded_when_everyone_ties():
    assert match_winners({0: 3, 1: 3, 2: 3, 3: 3}) == ([0, 1, 2, 3], False)


def test_five_players_with_four_tied_winners_are_not_rewarded():
    winners, rewarded = match_winners({0: 1, 1: 1, 2: 1, 3: 1, 4: 8})
    assert len(winners) == 4
    assert rewarded is False


def test_a_player_with_zero_penalties_wins():
    assert match_winners({0: 0, 1: 4, 2: 4, 3: 4}) == ([0], True)


@pytest.mark.parametrize("penalties, message", [
    ({}, "A match needs players"), ({0: -1, 1: 2}, "cannot have %(count)s penalties"),
    ({0: "2", 1: 2}, "cannot have %(count)s penalties")])
def test_match_winners_refuses_nonsense(penalties, message):
    with refuses(message):
        match_winners(penalties)


# --- Hours (docs/rules.md#crazy-time-matches) -----------------------------------------


@pytest.mark.parametrize("match, hours", [(1, 1), (2, 2), (3, 3), (4, 0)])
def test_hour_tokens_are_1h_2h_3h_after_matches_1_to_3_and_none_after_4(match, hours):
    assert hours_for_match(match) == hours


@pytest.mark.parametrize("match", [0, 5, "2"])
def test_no_hours_for_a_match_that_does_not_exist(match):
    with refuses("There is no match"):
        hours_for_match(match)


# --- Final ranking (docs/rules.md#crazy-time-final-score) -----------------------------


def test_final_score_is_hours_minus_match_4_penalties_highest_first():
    # scores: A 6-2=4, B 3-0=3, C 5-5=0
    assert final_ranking({"A": 6, "B": 3, "C": 5}, {"A": 2, "B": 0, "C": 5}) == [
        ["A"], ["B"], ["C"]]


def test_final_score_can_go_below_zero():
    assert final_ranking({"A": 0, "B": 1}, {"A": 2, "B": 4}) == [["A"], ["B"]]  # -2 vs -3


def test_equal_score_goes_to_fewer_match_4_penalties():
    # both score 2: B took 1 penalty in match 4, A took 4
    assert final_ranking({"A": 6, "B": 3}, {"A": 4, "B": 1}) == [["B"], ["A"]]


def test_still_tied_players_share_the_place_and_the_next_place_follows():
    hours = {"A": 3, "B": 4, "C": 4, "D": 0}
    p4 = {"A": 0, "B": 1, "C": 1, "D": 0}
    # A 3 (0 pen), B 3 (1), C 3 (1), D 0
    assert final_ranking(hours, p4) == [["A"], ["B", "C"], ["D"]]


def test_final_ranking_needs_the_same_players_in_both_maps():
    with refuses("Every player needs both their hours and their match 4 penalties"):
        final_ranking({"A": 1, "B": 2}, {"A": 0})


# --- The deal (docs/rules.md#crazy-time-decisions: extra cards from the rabbit, clockwise) ---


@pytest.mark.parametrize("players, counts", [
    (FOUR, [16, 16, 16, 15]),
    (FIVE, [13, 13, 13, 12, 12]),
    ([0, 1, 2, 3, 4, 5], [11, 11, 11, 10, 10, 10]),
    ([0, 1, 2, 3, 4, 5, 6], [9, 9, 9, 9, 9, 9, 9]),
])
def test_63_time_cards_are_dealt_as_evenly_as_possible(players, counts):
    dealt = deal(players)
    assert list(dealt.values()) == counts
    assert sum(dealt.values()) == 63


def test_the_extra_cards_go_to_the_rabbit_and_the_next_seats_clockwise():
    assert deal(FIVE, rabbit=3) == {"3": 13, "4": 13, "0": 13, "1": 12, "2": 12}


def test_the_state_shows_the_deal_from_the_recorded_rabbit():
    state = replay(setup(FOUR), [ev("rabbit", seat=2)])
    assert state["rabbit"] == 2
    assert list(state["deal"].items()) == [("2", 16), ("3", 16), ("0", 16), ("1", 15)]


# --- Starting a game ------------------------------------------------------------------


def test_start_keeps_players_side_and_starting_law():
    assert start([3, 1, 0, 2], {"side": "blue", "starting_law": True}) == {
        "players": [3, 1, 0, 2], "side": "blue", "starting_law": True}


def test_start_defaults_to_purple_without_starting_law():
    assert start(FOUR, {}, rng=random.Random(1)) == {
        "players": FOUR, "side": "purple", "starting_law": False}


@pytest.mark.parametrize("players", [[0, 1, 2], [0, 1, 2, 3, 4, 5, 6, 7]])
def test_crazy_time_is_for_4_to_7_players(players):
    with refuses("Crazy Time is for 4 to 7 players"):
        start(players, {})


@pytest.mark.parametrize("players, options, message", [
    (FOUR, {"side": "green"}, "The board side must be"),
    (FOUR, {"starting_law": "yes"}, "Starting with a law is a yes or no choice"),
    (FOUR, {"speed": 2}, "Crazy Time has no option"),
    ([0, 0, 1, 2], {}, "A player cannot sit twice"),
    ([0, 1, 2, "3"], {}, "Players are given by their seat numbers"),
])
def test_start_refuses_bad_options_and_seats(players, options, message):
    with refuses(message):
        start(players, options)


# --- A match, replayed (docs/rules.md#crazy-time-penalties, #crazy-time-matches) ------


def test_a_new_game_starts_match_1_in_play_with_all_tokens():
    state = replay(setup(FIVE, side="blue"), [])
    assert (state["match"], state["phase"], state["finished"]) == (1, "play", False)
    assert (state["tokens_total"], state["tokens_left"]) == (6, 6)
    assert state["penalties"] == {"1": {"0": 0, "1": 0, "2": 0, "3": 0, "4": 0}}
    assert state["hours"] == {"0": 0, "1": 0, "2": 0, "3": 0, "4": 0}
    assert state["standings"] is None


def test_each_penalty_is_one_token_to_that_player():
    state = replay(setup(FIVE), [penalty(2, reason="wrong_call"), penalty(2), penalty(4)])
    assert state["penalties"]["1"] == {"0": 0, "1": 0, "2": 2, "3": 0, "4": 1}
    assert state["tokens_left"] == 9


def test_the_match_ends_by_itself_when_the_last_token_is_given():
    almost = play_match({0: 3, 1: 2, 2: 0, 3: 1})[:-1]
    state = replay(setup(FOUR, side="blue"), almost)
    assert (state["phase"], state["tokens_left"]) == ("play", 1)
    state = replay(setup(FOUR, side="blue"), play_match({0: 3, 1: 2, 2: 0, 3: 1}))
    assert state["phase"] == "law"
    assert state["tokens_left"] == 0
    assert state["match_results"] == [
        {"match": 1, "winners": [2], "rewarded": True, "hours": 1}]


def test_winners_take_the_hour_token_and_leave_the_room():
    state = replay(setup(FIVE, side="blue"), play_match({0: 2, 1: 2, 2: 2, 3: 0, 4: 0}))
    assert state["out_of_room"] == [3, 4]
    assert state["hours"] == {"0": 0, "1": 0, "2": 0, "3": 1, "4": 1}


def test_when_fewer_than_two_would_stay_nobody_is_rewarded_or_leaves():
    state = replay(setup(FOUR, side="blue"), play_match({0: 1, 1: 1, 2: 1, 3: 3}))
    assert state["match_results"] == [
        {"match": 1, "winners": [0, 1, 2], "rewarded": False, "hours": 0}]
    assert state["out_of_room"] == []
    assert state["hours"] == {"0": 0, "1": 0, "2": 0, "3": 0}
    assert state["phase"] == "law"
    assert state["made_by_all"] is True


def test_a_law_made_when_nobody_left_is_known_by_everyone_and_says_so():
    events = play_match({0: 1, 1: 1, 2: 1, 3: 3}) + [law("Moon")]
    state = replay(setup(FOUR, side="blue"), events)
    (moon,) = state["laws"]
    assert moon["known_by"] == FOUR
    assert moon["made_by_all"] is True


def test_the_new_law_is_known_only_by_the_players_who_stayed():
    events = play_match({0: 2, 1: 2, 2: 2, 3: 0, 4: 0}) + [law("Moon")]
    state = replay(setup(FIVE, side="blue"), events)
    assert state["laws"] == [{
        "id": 1, "name": "Moon", "when": "When a card shows 6", "what": "Say moo",
        "known_by": [0, 1, 2], "made_by": [0, 1, 2], "match": 1, "made_by_all": False}]
    assert state["made_by_all"] is False


def test_next_match_brings_the_winners_back_with_that_matchs_tokens():
    events = play_match({0: 2, 1: 2, 2: 2, 3: 0, 4: 0}) + [law("Moon"), NEXT]
    state = replay(setup(FIVE, side="blue"), events)
    assert (state["match"], state["phase"], state["out_of_room"]) == (2, "play", [])
    assert (state["tokens_total"], state["tokens_left"]) == (8, 8)
    assert state["penalties"]["2"] == {"0": 0, "1": 0, "2": 0, "3": 0, "4": 0}
    assert state["penalties"]["1"] == {"0": 2, "1": 2, "2": 2, "3": 0, "4": 0}


def test_the_same_player_may_win_several_matches_and_hours_add_up():
    events = (play_match({0: 0, 1: 4, 2: 4, 3: 4}) + [law("A"), NEXT]
              + play_match({0: 0, 1: 4, 2: 4, 3: 4}) + [law("B"), NEXT]
              + play_match({0: 0, 1: 4, 2: 4, 3: 4}) + [law("C")])
    state = replay(setup(FOUR), events)
    assert [r["winners"] for r in state["match_results"]] == [[0], [0], [0]]
    assert [r["hours"] for r in state["match_results"]] == [1, 2, 3]
    assert state["hours"] == {"0": 6, "1": 0, "2": 0, "3": 0}
    assert state["out_of_room"] == [0]


def test_the_rabbit_holder_may_change_before_the_first_penalty_of_a_match():
    state = replay(setup(FOUR), [ev("rabbit", seat=1), ev("rabbit", seat=3)])
    assert state["rabbit"] == 3


def test_a_penalty_for_a_broken_law_may_name_a_law_in_force():
    events = play_match({0: 2, 1: 2, 2: 2, 3: 0, 4: 0}) + [law("Moon"), NEXT,
                                                          penalty(3, reason="broke_law", law=1)]
    state = replay(setup(FIVE, side="blue"), events)
    assert state["penalties"]["2"]["3"] == 1


@pytest.mark.parametrize("basic", ["reversal", "synchronisation", "overload"])
def test_a_penalty_may_name_one_of_the_three_laws_in_force_from_match_1(basic):
    state = replay(setup(FIVE), [penalty(3, reason="broke_law", law=basic)])
    assert state["penalties"]["1"]["3"] == 1
    assert state["tokens_left"] == 11


def test_a_penalty_s_law_name_must_be_the_law_s_name():
    events = play_match({0: 2, 1: 2, 2: 2, 3: 0, 4: 0}) + [law("Moon"), NEXT]
    ok = replay(setup(FIVE, side="blue"),
                events + [penalty(3, reason="broke_law", law=1, law_name="Moon")])
    assert ok["penalties"]["2"]["3"] == 1
    with refuses("is not called"):
        replay(setup(FIVE, side="blue"),
               events + [penalty(3, reason="broke_law", law=1, law_name="Sun")])
    with refuses("is not called"):
        replay(setup(FIVE, side="blue"), events[:-1] + [learn(1, 4) | {
            "data": {"law": 1, "seat": 4, "law_name": "Sun"}}])


def test_the_replay_uses_the_public_penalty_tokens(monkeypatch):
    monkeypatch.setattr(rules, "penalty_tokens", lambda match, side="purple": 2)
    state = replay(setup(FOUR), [penalty(0), penalty(1)])
    assert state["phase"] == "law"


def test_the_replay_uses_the_public_match_winners(monkeypatch):
    monkeypatch.setattr(rules, "match_winners", lambda penalties: ([3], False))
    state = replay(setup(FOUR, side="blue"), play_match({0: 3, 1: 3, 2: 0, 3: 0}))
    assert state["match_results"][0]["winners"] == [3]
    assert state["out_of_room"] == []


def test_the_state_is_plain_json():
    events = play_match({0: 2, 1: 2, 2: 2, 3: 0, 4: 0}) + [law("Moon")]
    state = replay(setup(FIVE, side="blue"), events)
    assert json.loads(json.dumps(state)) == state


# --- The whole game on the blue side, from the rabbit to the final places -------------


def test_a_whole_blue_game_ends_with_the_hand_calculated_standings():
    state = replay(setup(FIVE, side="blue", starting_law=True), full_game())
    assert state["finished"] is True
    assert state["phase"] == "finished"
    assert state["hours"] == {"0": 2, "1": 3, "2": 0, "3": 3, "4": 3}
    assert state["scores"] == {"0": 1, "1": 1, "2": 0, "3": 1, "4": -4}
    assert state["standings"] == [[0], [1, 3], [2], [4]]
    assert [r["winners"] for r in state["match_results"]] == [[4], [0, 4], [1, 3], [2]]
    assert state["match_results"][3] == {"match": 4, "winners": [2], "rewarded": False,
                                         "hours": 0}
    assert [law["known_by"] for law in state["laws"]] == [
        FIVE, [0, 1, 2, 3, 4], [1, 2, 3], [0, 2, 4]]
    assert [law["match"] for law in state["laws"]] == [0, 1, 2, 3]
    assert sum(state["penalties"]["4"].values()) == 12


def test_a_winner_who_is_told_a_law_knows_it_but_did_not_make_it():
    events = [law("Echo")] + play_match({0: 2, 1: 2, 2: 1, 3: 1, 4: 0}) + [law("Moon")]
    state = replay(setup(FIVE, side="blue", starting_law=True), events)
    assert state["laws"][1]["known_by"] == [0, 1, 2, 3]
    state = replay(setup(FIVE, side="blue", starting_law=True), events + [learn(2, 4)])
    moon = state["laws"][1]
    assert moon["made_by"] == [0, 1, 2, 3]
    assert moon["known_by"] == [0, 1, 2, 3, 4]


# --- The starting law (docs/rules.md#crazy-time-matches: optional harder start) -------


def test_the_starting_law_is_known_by_everyone():
    state = replay(setup(FIVE, starting_law=True), [law("Echo")])
    (echo,) = state["laws"]
    assert (echo["match"], echo["known_by"], echo["made_by_all"]) == (0, FIVE, True)
    assert state["awaiting_starting_law"] is False
    assert all("when" in shown for seat in FIVE for shown in laws_for(state, seat))


def test_any_players_phone_may_enter_the_starting_law():
    state = replay(setup(FIVE, starting_law=True), [law("Echo", sender=3)])
    assert state["laws"][0]["known_by"] == FIVE


def test_a_penalty_waits_for_the_starting_law():
    with pytest.raises(RuleError, match="starting law"):
        replay(setup(FIVE, starting_law=True), [penalty(0)])


def test_the_starting_law_is_made_only_once():
    with refuses("A new law is made after a match"):
        replay(setup(FIVE, starting_law=True), [law("Echo"), law("Other")])


def test_without_the_harder_start_no_law_before_match_1():
    with refuses("A new law is made after a match"):
        replay(setup(FIVE), [law("Echo")])


# --- Refusals ------------------------------------------------------------------------


def refused(events, message, players=FIVE, **options):
    """Replay ``events`` and expect the rule whose message contains ``message`` to refuse
    them (any other rule refusing fails the test); return the error."""
    options.setdefault("side", "blue")
    with refuses(message) as caught:
        replay(setup(players, **options), events)
    return caught.value


def test_no_penalty_after_the_match_is_over():
    err = refused(after_match_1(penalty(0)), "no penalty until the next match")
    assert err.params == {"match": 1}


def test_no_penalty_while_the_new_law_is_made_even_after_it_is_recorded():
    refused(after_match_1(law("Moon"), penalty(0)), "no penalty until the next match")


def test_no_penalty_after_the_game_is_finished():
    refused(full_game() + [penalty(0)], "The game is over.", starting_law=True)


def test_no_penalty_for_a_player_not_in_the_game():
    err = refused([penalty(9)], "is not in this game")
    assert err.params == {"player": 9}  # the view names the player (games.message)


@pytest.mark.parametrize("data, message", [
    ({"reason": "sneezed"}, "is not a reason for a penalty"),
    ({"reason": "wrong_call", "law": 1}, "A law is named only for a penalty for breaking it"),
    ({"reason": "broke_law", "law": 1}, "There is no law"),  # no law made yet
])
def test_a_penalty_refuses_a_bad_reason_or_law(data, message):
    refused([penalty(0, **data)], message)


@pytest.mark.parametrize("name", ["", "   ", None, "x" * 61])
def test_a_law_needs_a_name_of_1_to_60_characters(name):
    refused(after_match_1(law(name)), "A law needs a name")


def test_a_law_name_is_stripped_and_60_characters_are_enough():
    state = replay(setup(FIVE, side="blue"), after_match_1(law("  " + "x" * 60 + " ")))
    assert state["laws"][0]["name"] == "x" * 60


@pytest.mark.parametrize("field", ["when", "what"])
@pytest.mark.parametrize("value", ["", None, "y" * 201])
def test_a_law_needs_its_when_and_what_cards(field, value):
    data = {"name": "Moon", "when": "6", "what": "moo", field: value}
    refused(after_match_1(ev("law", **data)), f"A law needs its {field.title()} card")


def test_a_law_card_may_be_given_by_its_number():
    state = replay(setup(FIVE, side="blue"), after_match_1(ev("law", name="Moon", when=7, what=15)))
    assert (state["laws"][0]["when"], state["laws"][0]["what"]) == ("7", "15")


def test_a_duplicate_law_name_is_refused_whatever_its_case():
    events = after_match_1(law("Moon"), NEXT) + play_match({0: 0, 1: 3, 2: 3, 3: 2, 4: 0})
    err = refused(events + [law("  mOOn ")], "There is already a law named")
    assert err.params == {"name": "mOOn"}


def test_only_one_law_per_match():
    refused(after_match_1(law("Moon"), law("Sun")), "is already made")


def test_no_new_law_during_a_match():
    refused([penalty(0), law("Moon")], "A new law is made after a match")


def test_a_winner_out_of_the_room_cannot_enter_the_law_from_their_phone():
    refused(after_match_1(law("Moon", sender=3)), "Only a player at the table")


def test_a_player_at_the_table_may_enter_the_law_from_their_phone():
    state = replay(setup(FIVE, side="blue"), after_match_1(law("Moon", sender=1)))
    assert state["laws"][0]["made_by"] == [0, 1, 2]


def test_a_phone_may_not_record_a_penalty():
    refused([ev("penalty", sender=2, seat=2)], "Only the host device")


def test_learning_a_law_twice_is_refused():
    refused(after_match_1(law("Moon"), learn(1, 3), learn(1, 3)), "already knows the law")


def test_a_player_who_made_the_law_already_knows_it():
    refused(after_match_1(law("Moon"), learn(1, 0)), "already knows the law")


@pytest.mark.parametrize("law_id, seat, message", [
    (2, 3, "There is no law"), (0, 3, "There is no law"), (1, 9, "is not in this game")])
def test_learning_an_unknown_law_or_seat_is_refused(law_id, seat, message):
    refused(after_match_1(law("Moon"), learn(law_id, seat)), message)


def test_next_match_waits_for_the_law():
    refused(after_match_1(NEXT), "Record the new law before the next match")


def test_next_match_only_after_a_match_ends():
    refused([penalty(0), NEXT], "is still being played")


def test_no_rabbit_change_after_the_first_penalty_of_a_match():
    refused([penalty(0), ev("rabbit", seat=1)], "The rabbit is given before")


def test_an_unknown_event_is_refused():
    refused([ev("shuffle")], "Crazy Time has no event")


@pytest.mark.parametrize("data", [[1, 2], "seat", 3])
def test_event_data_that_is_not_a_record_is_refused_not_a_crash(data):
    refused([{"type": "penalty", "data": data, "seat": None}], "This event is not understood")


# --- What each screen may see (docs/rules.md#crazy-time-matches: only knowers see the cards) ---


def test_a_law_s_text_is_absent_for_a_seat_that_does_not_know_it():
    state = replay(setup(FIVE, side="blue"), after_match_1(law("Moon", "Six", "Moo")))
    assert laws_for(state, 3) == [{"id": 1, "name": "Moon", "match": 1, "known": False}]
    assert laws_for(state, 0) == [{"id": 1, "name": "Moon", "match": 1, "when": "Six",
                                   "what": "Moo", "known": True, "made_by_all": False}]


def test_the_host_screen_sees_law_names_only():
    state = replay(setup(FIVE, side="blue"), after_match_1(law("Moon", "Six", "Moo")))
    assert laws_for(state, None) == [{"id": 1, "name": "Moon", "match": 1}]


def test_a_seat_that_learns_a_law_sees_it_from_then_on():
    state = replay(setup(FIVE, side="blue"),
                   after_match_1(law("Moon", "Six", "Moo"), learn(1, 4)))
    assert laws_for(state, 4)[0]["what"] == "Moo"
    assert "what" not in laws_for(state, 3)[0]


def test_no_secret_text_anywhere_a_non_knower_can_see_during_the_game():
    state = replay(setup(FIVE, side="blue", starting_law=True), full_game()[:-1])
    secrets = {"The hour hand points down", "Clap", "Call 5 o'clock", "Whistle"}
    for seat, law_id in [(0, 3), (4, 3), (1, 4), (3, 4)]:
        shown = json.dumps(laws_for(state, seat))
        hidden = state["laws"][law_id - 1]
        assert hidden["when"] not in shown and hidden["what"] not in shown
    assert not any(text in json.dumps(laws_for(state, None)) for text in secrets)


def test_every_law_is_revealed_to_everyone_with_its_makers_at_the_end():
    state = replay(setup(FIVE, side="blue", starting_law=True), full_game())
    for seat in [*FIVE, None]:
        shown = laws_for(state, seat)
        assert [law["what"] for law in shown] == ["Say echo", "Howl", "Clap", "Whistle"]
        assert [law["made_by"] for law in shown] == [FIVE, [0, 1, 2, 3], [1, 2, 3], [0, 2, 4]]


# --- History lines ----------------------------------------------------------------------


def test_a_law_line_names_the_law_and_never_its_cards():
    message, params = describe(law("Moon", "SECRET-WHEN", "SECRET-WHAT"))
    line = message % params
    assert "Moon" in line
    assert "SECRET" not in line and "SECRET" not in repr(params)


@pytest.mark.parametrize("reason, words", [
    ("wrong_call", "wrong call"), ("slowest_slap", "slowest slap"),
    ("wrong_stop", "Stop!"), ("tick_tock", "tick-tock"), ("broke_law", "broke a law"),
    (None, "took a penalty"),
])
def test_a_penalty_line_names_the_player_and_the_reason(reason, words):
    data = {"reason": reason} if reason else {}
    message, params = describe(penalty(2, **data), names={2: "Mina"})
    line = message % params
    assert "Mina" in line and words in line


def test_a_broken_law_line_names_the_law_not_its_text():
    message, params = describe(penalty(1, reason="broke_law", law=2),
                               names={1: "Jun"}, law_names={2: "Tide"})
    assert message % params == "Jun took a penalty: broke the law Tide"


def test_with_one_argument_a_law_is_named_by_the_name_its_event_carries():
    message, params = describe(penalty(1, reason="broke_law", law=2, law_name="Tide"))
    assert message % params == "1 took a penalty: broke the law Tide"
    message, params = describe(ev("learn", law=2, seat=4, law_name="Tide"))
    assert message % params == "4 now knows the law Tide"
    assert params["player"] == 4  # the app maps the seat to the player's name


def test_a_broken_starting_law_line_names_it():
    message, params = describe(penalty(0, reason="broke_law", law="overload"))
    assert message % params == "0 took a penalty: broke Overload"


@pytest.mark.parametrize("event", [ev("rabbit", seat=1), learn(1, 2), NEXT])
def test_every_event_has_a_history_line(event):
    message, params = describe(event)
    assert message % params


# --- law cards by number, and the last to play after a mistake -----------------------


@pytest.mark.parametrize(("when", "what"), [("1", "18"), ("16", "1"), (7, 12), ("#3", "#18")])
def test_a_law_entered_by_card_numbers_names_cards_of_the_box(when, what):
    """16 When cards and 18 What cards (docs/rules.md#crazy-time)."""
    events = play_match({0: 2, 1: 2, 2: 2, 3: 0, 4: 0}) + [law("Moon", when=when, what=what)]
    (moon,) = replay(setup(FIVE, side="blue"), events)["laws"]
    assert (moon["when"], moon["what"]) == (str(when), str(what))


@pytest.mark.parametrize(("when", "what", "message"), [
    ("17", "3", "The box has %(count)s When cards"),
    ("0", "3", "The box has %(count)s When cards"),
    ("3", "19", "The box has %(count)s What cards"),
    (3, 40, "The box has %(count)s What cards"),
])
def test_a_card_number_the_box_does_not_have_is_refused(when, what, message):
    events = play_match({0: 2, 1: 2, 2: 2, 3: 0, 4: 0}) + [law("Moon", when=when, what=what)]
    with refuses(message):
        replay(setup(FIVE, side="blue"), events)


def test_a_card_text_that_holds_a_number_is_text():
    events = play_match({0: 2, 1: 2, 2: 2, 3: 0, 4: 0}) + [law("Moon", when="When 20 is said")]
    (moon,) = replay(setup(FIVE, side="blue"), events)["laws"]
    assert moon["when"] == "When 20 is said"


def test_the_last_to_play_after_a_mistake_takes_the_penalty_and_the_history_says_why():
    """If play went on past a mistake, the last player who played takes it."""
    event = penalty(2, reason="played_on")
    state = replay(setup(FOUR), [event])
    assert state["penalties"]["1"]["2"] == 1
    line, params = rules.describe(event, {2: "Ann"})
    assert line == "%(player)s took a penalty: the last to play after a mistake"
    assert params == {"player": "Ann"}
