"""What happens next, one line per phase of each game, from its state alone
(each rules module's ``next_step``): the right phase, the right seats, never a secret."""

import random

import pytest

from companion.core import registry
from companion.crazytime import rules as crazytime
from companion.kraken import rules as kraken
from companion.skullking import rules as skullking


def ev(kind, sender=None, **data):
    """An event; ``sender`` is the seat of the phone that sent it (None: the host)."""
    return {"type": kind, "data": data, "seat": sender}



# --- No Touch Kraken (docs/rules.md#kraken-play, docs/rules.md#kraken-end) ------------

FOUR = [0, 1, 2, 3]


def kraken_step(events, players=FOUR, seed=1, **options):
    setup = kraken.start(players, options, random.Random(seed))
    return kraken.next_step(setup, kraken.replay(setup, events))


def reveal(seat, card="empty"):
    return ev("reveal", seat=seat, card=card)


def test_kraken_before_the_marker_everyone_reads_their_role_and_the_last_at_sea_takes_it():
    message, params = kraken_step([])
    assert "roles" in message and "most recently" in message
    assert params == {}


def test_kraken_the_marker_holder_chooses_whose_card():
    assert kraken_step([ev("marker", seat=2)]) == (
        "%(holder)s has the marker: whose card?", {"holder": [2]})


def test_kraken_the_marker_follows_the_revealed_card():
    message, params = kraken_step([ev("marker", seat=2), reveal(0)])
    assert params == {"holder": [0]}


def test_kraken_after_the_last_action_of_round_1_gather_and_deal_4_each():
    events = [ev("marker", seat=0), reveal(1), reveal(2), reveal(3), reveal(0)]
    message, params = kraken_step(events)
    assert message.startswith("Round %(round)s over")
    assert params == {"round": 1, "cards": 4, "holder": [0]}


def test_kraken_after_round_2_deal_3_each_and_the_first_reveal_of_round_3_ends_the_stop():
    events = [ev("marker", seat=0)] + [reveal(s) for s in [1, 2, 3, 0] * 2]
    assert kraken_step(events)[1] == {"round": 2, "cards": 3, "holder": [0]}
    assert kraken_step(events + [reveal(1)]) == (
        "%(holder)s has the marker: whose card?", {"holder": [1]})


def test_kraken_with_eight_players_the_marker_goes_clockwise_whoever_was_revealed():
    eight = list(range(8))
    events = [ev("marker", seat=3), reveal(6)]
    assert kraken_step(events, eight, clockwise=True)[1] == {"holder": [4]}


def test_kraken_the_kraken_revealed_is_game_over_for_the_skeletons():
    message, params = kraken_step([ev("marker", seat=0), reveal(1, "kraken")])
    assert message == "Game over: the Skeletons win" and params == {}


def test_kraken_every_treasure_found_is_game_over_for_the_explorers():
    events = [ev("marker", seat=0)] + [reveal(s, "treasure") for s in (1, 2, 3, 0)]
    assert kraken_step(events) == ("Game over: the Explorers win", {})


def test_kraken_a_winning_team_without_players_is_game_over_for_nobody():
    three = [0, 1, 2]
    seed = next(seed for seed in range(200)
                if set(kraken.start(three, {}, random.Random(seed))["roles"].values())
                == {"explorer"})
    events = [ev("marker", seat=0), reveal(1, "kraken")]
    assert kraken_step(events, three, seed) == ("Game over: nobody wins", {})


def test_kraken_the_line_never_carries_a_role():
    for seed in range(20):
        setup = kraken.start(FOUR, {}, random.Random(seed))
        state = kraken.replay(setup, [ev("marker", seat=0), reveal(1)])
        message, params = kraken.next_step(setup, state)
        shown = message + repr(params)
        assert "explorer" not in shown.lower().replace("explorers win", "")
        assert "skeleton" not in shown.lower()


# --- Skull King (docs/rules.md#skull-king) ---------------------------------------------


def bid(round_, seat, value, phone=None):
    return ev("bid", phone, round=round_, seat=seat, bid=value)


def skullking_step(events, players=FOUR, **options):
    setup = skullking.start(players, options)
    return skullking.next_step(setup, skullking.replay(setup, events))


def test_skull_king_round_1_the_first_dealer_deals_1_each_and_everyone_must_bid():
    message, params = skullking_step([])
    assert "deals" in message and "waiting for" in message
    assert params == {"round": 1, "dealer": [0], "cards": 1, "seats": [0, 1, 2, 3]}


def test_skull_king_a_bid_in_takes_that_player_off_the_waiting_list_never_its_number():
    message, params = skullking_step([bid(1, 2, 1, phone=2), bid(1, 0, 0)])
    assert params["seats"] == [1, 3]
    assert set(params) == {"round", "dealer", "cards", "seats"}  # no bid's value


def test_skull_king_a_changed_bid_still_counts_once():
    message, params = skullking_step([bid(1, 2, 1, phone=2), bid(1, 2, 0, phone=2)])
    assert params["seats"] == [0, 1, 3]


def test_skull_king_everyone_bid_calls_for_yo_ho_ho():
    events = [bid(1, seat, 0) for seat in FOUR]
    assert skullking_step(events) == ("Round %(round)s: everyone has bid · “Yo-ho-ho!”",
                                      {"round": 1})


def test_skull_king_after_the_reveal_the_player_left_of_the_dealer_leads():
    events = [bid(1, seat, 0) for seat in FOUR] + [ev("reveal_bids", round=1)]
    message, params = skullking_step(events)
    assert "leads" in message and params == {"round": 1, "lead": [1]}


def test_skull_king_the_deal_moves_one_seat_clockwise_each_round_from_the_first_dealer():
    events = [bid(1, seat, 0) for seat in FOUR] + [
        ev("reveal_bids", round=1),
        ev("result", round=1, results={str(s): {"won": 1 if s == 3 else 0} for s in FOUR})]
    message, params = skullking_step(events, first_dealer=2)
    assert params == {"round": 2, "dealer": [3], "cards": 2, "seats": FOUR}


def test_skull_king_game_over_names_every_player_tied_first():
    events = [bid(1, seat, 0) for seat in FOUR] + [
        ev("reveal_bids", round=1),
        ev("result", round=1, results={str(s): {"won": 1 if s == 3 else 0} for s in FOUR})]
    assert skullking_step(events, way="past_your_bedtime") == (
        "Game over: %(seats)s won", {"seats": [0, 1, 2]})


# --- Crazy Time (docs/rules.md#crazy-time-matches) -------------------------------------

FIVE = [0, 1, 2, 3, 4]


def crazytime_step(events, players=FIVE, **options):
    setup = crazytime.start(players, options)
    return crazytime.next_step(setup, crazytime.replay(setup, events))


def penalties(counts):
    return [ev("penalty", seat=seat) for seat, n in counts.items() for _ in range(n)]


def law(name, sender=None):
    return ev("law", sender, name=name, when="When a card shows 6", what="Say moo")


# Match 1 on the blue side: 6 tokens, seat 0 takes none and wins it.
MATCH_1 = {1: 2, 2: 2, 3: 1, 4: 1}


def test_crazy_time_match_1_starts_by_giving_the_rabbit_to_the_youngest():
    message, params = crazytime_step([])
    assert "rabbit" in message and params == {"match": 1}


def test_crazy_time_the_rabbit_holder_starts_once_the_cards_are_dealt():
    assert crazytime_step([ev("rabbit", seat=3)]) == (
        "Match %(match)s: deal the time cards · %(seat)s has the rabbit and starts",
        {"match": 1, "seat": [3]})


def test_crazy_time_the_harder_start_asks_for_the_starting_law_first():
    message, params = crazytime_step([], starting_law=True)
    assert "starting law" in message and params == {}
    assert "rabbit" in crazytime_step([law("Moo")], starting_law=True)[0]


def test_crazy_time_during_a_match_the_penalty_tokens_left_count_down():
    message, params = crazytime_step(penalties({1: 2}), side="blue")
    assert params == {"match": 1, "left": 4, "total": 6}


def test_crazy_time_the_winners_of_a_match_leave_and_the_rest_make_a_law():
    message, params = crazytime_step(penalties(MATCH_1), side="blue")
    assert "leave the room" in message and "make a law" in message
    assert params == {"seats": [0], "match": 1}


def test_crazy_time_the_law_made_the_winners_are_called_back_for_the_next_match():
    events = penalties(MATCH_1) + [law("Moo", sender=2)]
    assert crazytime_step(events, side="blue") == (
        "Law made: call %(seats)s back and start match %(next)s", {"seats": [0], "next": 2})


def test_crazy_time_the_next_match_deals_again_and_the_rabbit_still_starts():
    events = [ev("rabbit", seat=4)] + penalties(MATCH_1) + [law("Moo"), ev("next_match")]
    assert crazytime_step(events, side="blue")[1] == {"match": 2, "seat": [4]}


def test_crazy_time_when_too_few_would_stay_nobody_leaves_and_everyone_makes_the_law():
    four = [0, 1, 2, 3]
    # 0, 1 and 2 tie on no penalty: only 3 would stay, so nobody leaves.
    events = penalties({3: 6})
    message, params = crazytime_step(events, four, side="blue")
    assert "nobody leaves" in message and params == {"match": 1}
    assert crazytime_step(events + [law("Moo")], four, side="blue") == (
        "Law made: start match %(next)s", {"next": 2})


def test_crazy_time_game_over_names_the_first_place():
    events = []
    for match, tokens in zip(range(1, 5), (6, 8, 10, 12), strict=True):
        events += penalties({1: tokens - 1, 2: 1})  # seat 0, 3, 4 win matches 1 to 3
        if match < 4:
            events += [law(f"Law {match}"), ev("next_match")]
    message, params = crazytime_step(events, side="blue")
    assert message == "Game over: %(seats)s won"
    assert params == {"seats": [0, 3, 4]}


def test_crazy_time_the_line_never_carries_a_law():
    events = penalties(MATCH_1) + [law("Secret Moo")]
    message, params = crazytime_step(events, side="blue")
    assert "Moo" not in message + repr(params)


# --- every game says one; a game that declares none says nothing ----------------------

def test_every_installed_game_declares_its_next_step():
    for kind, game in registry.load(registry.INSTALLED).items():
        assert game.next_step is game.rules.next_step, kind


def test_a_game_without_a_next_step_shows_no_line():
    assert registry.GameDef.__dataclass_fields__["next_step"].default({}, {}) is None


@pytest.mark.parametrize("step", [
    kraken_step([ev("marker", seat=2)]),
    skullking_step([bid(1, 2, 1, phone=2)]),
    crazytime_step(penalties(MATCH_1), side="blue"),
])
def test_players_are_lists_of_seats_and_everything_else_a_number(step):
    message, params = step
    for key, value in params.items():
        assert f"%({key})s" in message
        assert isinstance(value, list | int) and not isinstance(value, bool)
        if isinstance(value, list):
            assert all(isinstance(seat, int) for seat in value)
