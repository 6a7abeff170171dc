"""Skull King rules (docs/rules.md#skull-king): scoring by hand-worked examples, every
refusal, ways to play, the dealer's rotation, corrections and shared ranks."""

import json
import random
import re

import pytest

from companion.core.errors import RuleError
from companion.skullking import rules
from companion.skullking.rules import round_score
from companion.skullking.setup import WAYS, deck_size, house_rules, max_cards
from tests.refusing import refuses

AB = {"abilities": True}
R = pytest.param


def ev(kind, phone=None, **data):
    """An event; ``phone`` is the seat of the phone that sent it (None: the host)."""
    return {"type": kind, "data": data, "seat": phone}


def play_round(number, bids, won, **extra):
    """Events of one whole round: host-entered bids, the reveal, the result.
    ``won`` maps seat -> tricks, or seat -> a full result entry."""
    events = [ev("bid", round=number, seat=seat, bid=bid) for seat, bid in bids.items()]
    events.append(ev("reveal_bids", round=number))
    results = {str(seat): (w if isinstance(w, dict) else {"won": w}) for seat, w in won.items()}
    events.append(ev("result", round=number, results=results, **extra))
    return events


def game(players, **options):
    return rules.start(players, options, rng=random.Random(1))


# ------------------------------------------------------------ classic (the seed's) scoring


@pytest.mark.parametrize(
    "cards, bid, won, points",
    [
        (2, 2, 2, 40),  # seed: bid 2, took exactly 2 -> 2 x 20 = 40
        (4, 2, 4, -20),  # seed: bid 2, took 4 -> 2 off x -10 = -20
        (4, 2, 1, -10),  # seed: bid 2, took 1 -> 1 off x -10 = -10
        (5, 0, 0, 50),  # seed: bid 0 in round 5, took none -> 5 x 10 = 50
        (5, 0, 1, -50),  # seed: bid 0 in round 5, took one -> -(5 x 10) = -50
        (10, 7, 7, 140),  # 7 x 20 = 140: 20 a trick, not the quick summary's 10
        (10, 1, 10, -90),  # 9 off x -10 = -90
    ],
)
def test_classic_base_scoring_follows_the_seed(cards, bid, won, points):
    assert round_score(cards=cards, bid=bid, won=won, edition="classic") == points


def test_classic_pirates_taken_by_the_skull_king_pay_30_each_on_an_exact_bid():
    # bid 3, took 3: 60; two Pirates in the Skull King's trick: +60 -> 120
    assert round_score(cards=5, bid=3, won=3, edition="classic", pirates_by_skull_king=2) == 120


def test_classic_scary_mary_counts_as_a_sixth_pirate():
    # 5 Pirates + Scary Mary: 1 x 20 + 6 x 30 = 200
    assert round_score(cards=7, bid=1, won=1, edition="classic", pirates_by_skull_king=6) == 200


def test_classic_skull_king_taken_by_a_mermaid_pays_50():
    # bid 1, took 1: 20 + 50 = 70
    assert round_score(cards=3, bid=1, won=1, edition="classic", skull_king_by_mermaid=1) == 70


def test_a_missed_bid_earns_no_bonus():
    # bid 2, took 3: -10, the two Pirates are worth nothing
    assert round_score(cards=5, bid=2, won=3, edition="classic", pirates_by_skull_king=2) == -10


def test_bid_zero_scores_the_cards_dealt_not_the_round_number():
    # Broadside: round 1 deals 10 cards -> a made bid 0 is 100
    assert round_score(cards=10, bid=0, won=0) == 100


# ------------------------------------------------------------ 2021 edition scoring


def test_2021_fourteens_and_mermaids_taken_by_pirates():
    # bid 3, took 3: 60; two standard 14s +20, the black 14 +20, a Mermaid by a Pirate +20
    assert round_score(cards=6, bid=3, won=3, fourteens=2, black_fourteen=1,
                       mermaids_by_pirate=1) == 120


def test_2021_skull_king_taken_by_a_mermaid_pays_40():
    assert round_score(cards=3, bid=1, won=1, skull_king_by_mermaid=1) == 60  # 20 + 40


def test_2021_pirates_taken_by_the_skull_king_pay_30():
    assert round_score(cards=4, bid=2, won=2, pirates_by_skull_king=3) == 130  # 40 + 90


def test_2021_loot_pays_20_on_an_exact_bid_even_a_bid_of_zero():
    assert round_score(cards=4, bid=1, won=1, loot=1) == 40  # 20 + 20
    assert round_score(cards=4, bid=0, won=0, loot=2) == 80  # 40 + 2 x 20
    assert round_score(cards=4, bid=1, won=2, loot=1) == -10  # missed: no Loot


def test_rascal_of_roatan_wager_is_won_on_an_exact_bid_and_lost_otherwise():
    assert round_score(cards=4, bid=2, won=2, wager=20) == 60  # 40 + 20
    assert round_score(cards=4, bid=2, won=3, wager=20) == -30  # -10 - 20
    assert round_score(cards=4, bid=2, won=2, wager=0) == 40


# ------------------------------------------------------------ Rascal's scoring


@pytest.mark.parametrize(
    "won, points",
    [(3, 60), (2, 30), (4, 30), (1, 0), (5, 0), (6, 0)],  # 10 x 6 cards: all, half, nothing
)
def test_rascal_direct_hit_all_glancing_blow_half_otherwise_nothing(won, points):
    assert round_score(cards=6, bid=3, won=won, scoring="rascal") == points


@pytest.mark.parametrize("won, points", [(0, 50), (1, 25), (2, 0)])
def test_rascal_bid_zero_uses_the_same_formula(won, points):
    assert round_score(cards=5, bid=0, won=won, scoring="rascal") == points


def test_rascal_bonuses_are_scaled_like_the_points():
    kw = {"cards": 6, "bid": 3, "scoring": "rascal", "pirates_by_skull_king": 1}
    assert round_score(won=3, **kw) == 90  # 60 + 30
    assert round_score(won=4, **kw) == 45  # (60 + 30) / 2
    assert round_score(won=4, cards=6, bid=3, scoring="rascal", skull_king_by_mermaid=1) == 50
    assert round_score(won=5, **kw) == 0


def test_rascal_loot_pays_only_on_a_direct_hit():
    assert round_score(cards=4, bid=1, won=1, scoring="rascal", loot=1) == 60  # 40 + 20
    assert round_score(cards=4, bid=1, won=2, scoring="rascal", loot=1) == 20  # 40 / 2


def test_rascal_cannonball_pays_15_per_card_on_an_exact_bid_else_nothing():
    kw = {"cards": 6, "bid": 3, "scoring": "rascal", "shot": "cannonball"}
    assert round_score(won=3, **kw) == 90  # 15 x 6
    assert round_score(won=4, **kw) == 0
    assert round_score(won=3, black_fourteen=1, **kw) == 110  # 90 + 20
    assert round_score(won=4, black_fourteen=1, **kw) == 0


def test_grapeshot_is_the_normal_rascal_scoring():
    for won in range(7):
        assert round_score(cards=6, bid=3, won=won, scoring="rascal", shot="grapeshot") == \
            round_score(cards=6, bid=3, won=won, scoring="rascal")


def test_rascal_is_never_negative_but_a_lost_wager_still_costs():
    assert round_score(cards=4, bid=0, won=4, scoring="rascal") == 0
    assert round_score(cards=4, bid=1, won=1, scoring="rascal", wager=10) == 50  # 40 + 10
    assert round_score(cards=4, bid=1, won=2, scoring="rascal", wager=10) == 10  # 20 - 10
    assert round_score(cards=4, bid=1, won=3, scoring="rascal", wager=20) == -20  # 0 - 20


# ------------------------------------------------------------ round_score refusals


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"bid": 5}, "A bid must be between"),  # bid above cards
        ({"bid": -1}, "A bid must be between"),
        ({"won": 5}, "Tricks won must be between"),
        ({"won": -1}, "Tricks won must be between"),
        ({"cards": 0}, "A round deals between"),
        ({"bid": True}, "A bid must be between"),
        ({"edition": "2019"}, "Unknown edition"),
        ({"scoring": "wizard"}, "Unknown scoring"),
        ({"shot": "musket", "scoring": "rascal"}, "Unknown shot"),
        ({"shot": "cannonball"}, "belong to Rascal's scoring"),  # shots only under Rascal's scoring
        ({"edition": "classic", "scoring": "rascal"}, "Rascal's scoring belongs to"),
        ({"edition": "classic", "fourteens": 1}, "The classic box has no 14s"),
        ({"edition": "classic", "black_fourteen": 1}, "The classic box has no 14s"),
        ({"edition": "classic", "mermaids_by_pirate": 1}, "The classic box has no 14s"),
        ({"edition": "classic", "loot": 1}, "The classic box has no 14s"),
        ({"edition": "classic", "wager": 10}, "no Rascal of Roatan wager"),
        ({"wager": 5}, "A wager is 0, 10 or 20"),
        ({"wager": 30}, "A wager is 0, 10 or 20"),
        ({"black_fourteen": 2}, "only one black 14"),
        ({"fourteens": 4}, "only 3 standard 14s"),
        ({"skull_king_by_mermaid": 2}, "only one Skull King"),
        ({"mermaids_by_pirate": 3}, "only 2 Mermaids"),
        ({"pirates_by_skull_king": 7}, "only 6 Pirates"),
        ({"loot": 3}, "only 2 Loot cards"),
        ({"fourteens": -1}, "A count must be a whole number"),
        ({"pirates_by_skull_king": 1, "skull_king_by_mermaid": 1}, "cannot both capture and be"),
        ({"won": 0, "bid": 0, "fourteens": 1}, "A capture bonus needs a trick"),
        ({"won": 0, "bid": 0, "pirates_by_skull_king": 1}, "A capture bonus needs a trick"),
    ],
)
def test_round_score_refuses_impossible_input(kwargs, message):
    args = {"cards": 4, "bid": 2, "won": 2, **kwargs}
    with pytest.raises(ValueError):
        round_score(**args)
    with refuses(message):
        round_score(**args)


# ------------------------------------------------------------ ways to play and setup


def test_ways_to_play_in_order():
    assert list(WAYS) == ["standard", "even_keeled", "skip_to_the_brawl",
                                "swift_n_salty", "broadside", "whirlpool", "past_your_bedtime"]
    assert WAYS["standard"] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert WAYS["even_keeled"] == [2, 2, 4, 4, 6, 6, 8, 8, 10, 10]
    assert WAYS["skip_to_the_brawl"] == [6, 7, 8, 9, 10]
    assert WAYS["swift_n_salty"] == [5, 5, 5, 5, 5]
    assert WAYS["broadside"] == [10] * 10
    assert WAYS["whirlpool"] == [9, 9, 7, 7, 5, 5, 3, 3, 1, 1]
    assert WAYS["past_your_bedtime"] == [1]


@pytest.mark.parametrize(
    "players, edition, most",
    [(8, "2021", 8), (7, "2021", 10), (6, "classic", 10), (2, "2021", 10), (4, "classic", 10)],
)
def test_the_deck_caps_the_cards_a_round_deals(players, edition, most):
    assert max_cards(players, edition) == most


def test_eight_players_get_at_most_eight_cards_and_the_setup_says_so():
    setup = game(list(range(8)))
    assert setup["rounds"] == [1, 2, 3, 4, 5, 6, 7, 8, 8, 8]
    assert setup["capped"] is True
    assert game(list(range(8)), way="whirlpool")["rounds"] == [8, 8, 7, 7, 5, 5, 3, 3, 1, 1]
    assert game(list(range(7)), way="broadside")["capped"] is False


def test_custom_sequence_is_used_as_given():
    setup = game([0, 1, 2], way="custom", rounds=[2, 4, 6, 8, 10])
    assert setup["rounds"] == [2, 4, 6, 8, 10]
    assert len(rules.replay(setup, [])["rounds"]) == 5


@pytest.mark.parametrize(
    "players, options, message",
    [
        ([0, 1, 2], {"way": "custom", "rounds": []}, "A custom game has 1 to"),
        ([0, 1, 2], {"way": "custom"}, "A custom game has 1 to"),
        ([0, 1, 2], {"way": "custom", "rounds": [0]}, "Each round deals 1 to"),
        (list(range(8)), {"way": "custom", "rounds": [9]}, "Each round deals 1 to"),  # over the cap
        ([0, 1, 2], {"way": "custom", "rounds": [1] * 21}, "A custom game has 1 to"),
        ([0, 1, 2], {"way": "standard", "rounds": [3]}, "Only a custom game takes a list"),
        ([0, 1, 2], {"way": "marathon"}, "Unknown way to play"),
        ([0, 1, 2], {"edition": "2019"}, "Unknown edition"),
        ([0, 1, 2], {"scoring": "wizard"}, "Unknown scoring"),
        ([0, 1, 2], {"edition": "classic", "scoring": "rascal"}, "Rascal's scoring belongs to"),
        ([0, 1, 2], {"edition": "classic", "loot": True}, "the pirate abilities belong"),
        ([0, 1, 2], {"edition": "classic", "kraken": True}, "the pirate abilities belong"),
        ([0, 1, 2], {"edition": "classic", "abilities": True}, "the pirate abilities belong"),
        ([0, 1, 2], {"loot": "yes"}, "The advanced options are yes or no"),
        ([0, 1, 2], {"first_dealer": 7}, "The first dealer must be one"),
        ([0, 1, 2], {"colour": "red"}, "Unknown option"),
        (list(range(7)), {"edition": "classic"}, "This edition is for"),  # classic: 2-6 players
        (list(range(9)), {}, "This edition is for"),  # 2021: 2-8 players
        ([0], {}, "This edition is for"),
        ([0, 0, 1], {}, "A seat can play only once"),
    ],
)
def test_start_refuses_bad_options(players, options, message):
    with refuses(message):
        rules.start(players, options)


def test_two_players_in_2021_bring_graybeards_ghost():
    assert game([0, 1])["ghost"] is True
    assert game([0, 1], edition="classic")["ghost"] is False
    assert game([0, 1, 2])["ghost"] is False


# ------------------------------------------------------------ dealer and lead


def test_dealer_rotates_clockwise_from_the_first_dealer_and_the_next_seat_leads():
    state = rules.replay(game([0, 1, 2, 3], first_dealer=2), [])
    assert [r["dealer"] for r in state["rounds"][:5]] == [2, 3, 0, 1, 2]
    assert [r["lead"] for r in state["rounds"][:5]] == [3, 0, 1, 2, 3]


def test_dealer_rotation_follows_the_seats_in_this_game():
    state = rules.replay(game([1, 4, 6]), [])
    assert [r["dealer"] for r in state["rounds"][:4]] == [1, 4, 6, 1]
    assert [r["lead"] for r in state["rounds"][:4]] == [4, 6, 1, 4]


# ------------------------------------------------------------ bidding


def test_bids_are_recorded_secretly_until_revealed():
    setup = game([0, 1, 2], way="broadside")
    state = rules.replay(setup, [ev("bid", phone=1, round=1, seat=1, bid=3)])
    assert state["phase"] == "bidding"
    assert state["rounds"][0]["bid_done"] == [1]
    assert state["rounds"][0]["bids"] == {"1": 3}
    assert state["bid_total"] is None  # the total would leak a lone bid


def test_a_new_bid_before_the_reveal_replaces_the_old_one():
    setup = game([0, 1, 2], way="broadside")
    events = [ev("bid", round=1, seat=0, bid=3), ev("bid", round=1, seat=0, bid=5)]
    assert rules.replay(setup, events)["rounds"][0]["bids"] == {"0": 5}


def test_reveal_shows_the_bid_total_against_the_cards():
    setup = game([0, 1, 2], way="broadside")
    events = [ev("bid", round=1, seat=s, bid=b) for s, b in [(0, 3), (1, 4), (2, 5)]]
    state = rules.replay(setup, [*events, ev("reveal_bids", round=1)])
    assert state["phase"] == "tricks"
    assert (state["bid_total"], state["cards"]) == (12, 10)


ROUND_1_REVEALED = play_round(1, {0: 0, 1: 1, 2: 0}, {0: 0, 1: 1, 2: 0})[:-1]


@pytest.mark.parametrize(
    "events, message",
    [
        R([ev("bid", round=1, seat=0, bid=2)], "between 0 and 1", id="2 of 1 card"),
        R([ev("bid", round=1, seat=0, bid=-1)], "between 0 and 1", id="negative bid"),
        R([ev("bid", round=2, seat=0, bid=0)], "not the round being bid", id="next round"),
        R([ev("bid", round=11, seat=0, bid=0)], "no round 11", id="no such round"),
        R([ev("bid", round=1, seat=9, bid=0)], "not in this game", id="not a player"),
        R([ev("bid", phone=1, round=1, seat=0, bid=0)], "own seat", id="another seat's phone"),
        R([ev("bid", round=1, seat=0, bid=0, shot="cannonball")], "Rascal's scoring",
          id="a shot without Rascal's scoring"),
        R([ev("bid", round=1, seat=0, bid=0, wager=10)], "pirate abilities",
          id="a wager without abilities"),
        R([ev("bid", round=1, seat=0, bid=0, secret="x")], "Unknown field", id="stray field"),
        R([ev("bid", round=1, seat=0, bid=0), ev("bid", round=1, seat=1, bid=1),
           ev("reveal_bids", round=1)], "1 to go", id="reveal before everyone bid"),
        R([*ROUND_1_REVEALED, ev("bid", round=1, seat=0, bid=1)], "already revealed",
          id="bid after the reveal"),
        R([*ROUND_1_REVEALED, ev("reveal_bids", round=1)], "already revealed",
          id="reveal twice"),
        R([ev("reveal_bids", phone=0, round=1)], "Only the host", id="a phone reveals"),
        R([ev("shuffle", round=1)], "Unknown event", id="unknown event"),
    ],
)
def test_bidding_refusals(events, message):
    with pytest.raises(RuleError, match=re.escape(message)):
        rules.replay(game([0, 1, 2]), events)


def test_the_event_seat_must_match_the_bid_seat():
    setup = game([0, 1, 2])
    with pytest.raises(RuleError, match="own seat"):
        rules.replay(setup, [{"type": "bid", "data": {"round": 1, "seat": 2, "bid": 0},
                              "seat": 1}])


def test_event_sets():
    assert rules.HOST_EVENTS == {"bid", "reveal_bids", "result", "correct", "adjust"}
    assert rules.SEAT_EVENTS == {"bid"}


# ------------------------------------------------------------ results across the table


def scored(setup, bids, won, **extra):
    return rules.replay(setup, play_round(1, bids, won, **extra))


def test_a_round_is_scored_and_the_next_one_begins():
    setup = game([0, 1, 2], edition="classic", way="skip_to_the_brawl")
    # 6 cards: seat 0 bid 2 took 2 (+40), seat 1 bid 0 took 0 (+60), seat 2 bid 3 took 4 (-10)
    state = scored(setup, {0: 2, 1: 0, 2: 3}, {0: 2, 1: 0, 2: 4})
    assert state["rounds"][0]["points"] == {"0": 40, "1": 60, "2": -10}
    assert state["totals"] == {"0": 40, "1": 60, "2": -10}
    assert (state["current"], state["round"], state["cards"], state["phase"]) == \
        (1, 2, 7, "bidding")


def test_harry_the_giant_changes_the_scored_bid_and_keeps_the_original():
    setup = game([0, 1, 2], way="swift_n_salty", abilities=True)
    # seat 0 bid 2, took 3, Harry +1 -> scored as bid 3: 60
    state = scored(setup, {0: 2, 1: 1, 2: 1},
                   {0: {"won": 3, "harry": 1}, 1: 1, 2: 1})
    rnd = state["rounds"][0]
    assert rnd["bids"]["0"] == 2
    assert rnd["final_bids"]["0"] == 3
    assert rnd["points"]["0"] == 60


def test_the_wager_is_declared_with_the_round_results_and_scored_with_the_round():
    """The Rascal of Roatan's wager is declared when the card is played, so it comes with
    the round's results, never with the bid (docs/rules.md#skull-king-decisions)."""
    setup = game([0, 1, 2], way="swift_n_salty", abilities=True, scoring="rascal")
    events = [ev("bid", round=1, seat=0, bid=2, shot="cannonball"),
              ev("bid", round=1, seat=1, bid=1), ev("bid", round=1, seat=2, bid=1),
              ev("reveal_bids", round=1),
              ev("result", round=1, loot=[],
                 results={"0": {"won": 2, "wager": 20}, "1": {"won": 2}, "2": {"won": 1}})]
    state = rules.replay(setup, events)
    # seat 0: cannonball 15 x 5 + 20 = 95; seat 1 off by one: 25; seat 2 exact: 50
    assert state["rounds"][0]["points"] == {"0": 95, "1": 25, "2": 50}
    assert state["rounds"][0]["wagers"] == {"0": None, "1": None, "2": None}


def test_a_lost_wager_of_ten_costs_ten():
    setup = game([0, 1, 2], way="swift_n_salty", abilities=True)
    state = scored(setup, {0: 2, 1: 1, 2: 1},
                   {0: {"won": 3, "wager": 10}, 1: 1, 2: 1})  # bid 2, took 3: -10 - 10
    assert state["rounds"][0]["points"]["0"] == -20


def test_a_wager_of_zero_is_the_one_wager_of_the_round():
    """There is one Rascal of Roatan: a wager of 0 and a wager of 20 in one round cannot
    both be true."""
    setup = game([0, 1, 2], way="swift_n_salty", abilities=True)
    with pytest.raises(RuleError, match="Only one player can wager") as refused:
        scored(setup, {0: 5, 1: 0, 2: 0},
               {0: {"won": 5, "wager": 0}, 1: {"won": 0, "wager": 20}, 2: 0})
    assert refused.value.params["at"] == "wager"


def test_a_wager_without_the_pirate_abilities_is_refused_not_dropped():
    setup = game([0, 1, 2], way="swift_n_salty")
    with pytest.raises(RuleError, match="A wager needs the pirate abilities.") as refused:
        scored(setup, {0: 5, 1: 0, 2: 0}, {0: {"won": 5, "wager": 10}, 1: 0, 2: 0})
    assert refused.value.params == {"seat": 0, "at": "wager"}


def test_an_older_logs_wager_with_the_bid_still_replays_as_scored():
    """Logs recorded before the wager moved to the results hold it in the bid event: they
    replay unchanged (docs/rules.md#skull-king-decisions)."""
    setup = game([0, 1, 2], way="swift_n_salty", abilities=True)
    events = [ev("bid", round=1, seat=0, bid=2, wager=20),
              ev("bid", round=1, seat=1, bid=1, wager=None), ev("bid", round=1, seat=2, bid=2),
              ev("reveal_bids", round=1),
              ev("result", round=1,
                 results={"0": {"won": 2}, "1": {"won": 1}, "2": {"won": 2}})]
    assert rules.replay(setup, events)["rounds"][0]["points"] == {"0": 60, "1": 20, "2": 40}
    # ... and a second wager with the results is still one too many
    events[-1]["data"]["results"]["1"]["wager"] = 0
    with pytest.raises(RuleError, match="Only one player can wager"):
        rules.replay(setup, events)


def test_two_players_with_the_ghost_may_win_fewer_tricks_than_dealt():
    setup = game([0, 1], way="swift_n_salty")
    state = scored(setup, {0: 1, 1: 1}, {0: 1, 1: 1})  # the ghost took 3 of 5
    assert state["rounds"][0]["points"] == {"0": 20, "1": 20}


def test_kraken_and_white_whale_discard_tricks():
    setup = game([0, 1, 2], way="swift_n_salty", kraken=True, white_whale=True)
    state = scored(setup, {0: 1, 1: 1, 2: 1}, {0: 1, 1: 1, 2: 1}, discarded=2)
    assert state["rounds"][0]["discarded"] == 2
    assert state["rounds"][0]["points"] == {"0": 20, "1": 20, "2": 20}


RESULT_REFUSALS = [
    R({}, {0: 1, 1: 1, 2: 1}, {}, "add up to 3, not 5", id="3 tricks of 5"),
    R({}, {0: 5, 1: 1, 2: 0}, {}, "add up to 6, not 5", id="6 tricks of 5"),
    R({}, {0: 6, 1: 0, 2: 0}, {}, "between 0 and 5", id="more tricks than cards"),
    R({}, {0: 5, 1: 0}, {}, "Every player", id="a player missing"),
    R({}, {0: 5, 1: 0, 2: 0, 7: 0}, {}, "not in this game", id="not a player"),
    R({}, {0: {"won": 5, "points": 100}, 1: 0, 2: 0}, {}, "Unknown field: points",
      id="free points are not a counter"),
    R({}, {0: 4, 1: 0, 2: 0}, {"discarded": 1}, "Kraken or the White Whale",
      id="discard without Kraken"),
    R({"kraken": True}, {0: 3, 1: 0, 2: 0}, {"discarded": 2}, "at most 1",
      id="one Kraken discards one trick"),
    R({}, {0: {"won": 3, "fourteens": 2}, 1: {"won": 2, "fourteens": 2}, 2: 0}, {},
      "3 standard 14s", id="four standard 14s"),
    R({}, {0: {"won": 3, "black_fourteen": 1}, 1: {"won": 2, "black_fourteen": 1}, 2: 0}, {},
      "one black 14", id="two black 14s"),
    R({}, {0: {"won": 3, "mermaids_by_pirate": 2}, 1: {"won": 2, "mermaids_by_pirate": 1},
           2: 0}, {}, "2 Mermaids", id="three Mermaids"),
    R({}, {0: {"won": 3, "mermaids_by_pirate": 2}, 1: {"won": 2, "skull_king_by_mermaid": 1},
           2: 0}, {}, "2 Mermaids", id="both Mermaids taken, a third takes the Skull King"),
    R({}, {0: {"won": 3, "skull_king_by_mermaid": 1}, 1: {"won": 2, "skull_king_by_mermaid": 1},
           2: 0}, {}, "only one Skull King", id="Skull King taken twice"),
    R({}, {0: {"won": 3, "pirates_by_skull_king": 1}, 1: {"won": 2, "pirates_by_skull_king": 1},
           2: 0}, {}, "one Skull King", id="two players capture with the Skull King"),
    R({}, {0: {"won": 3, "pirates_by_skull_king": 1}, 1: {"won": 2, "skull_king_by_mermaid": 1},
           2: 0}, {}, "both capture", id="Skull King captures and is captured"),
    R({}, {0: {"won": 5, "pirates_by_skull_king": 3}, 1: 0, 2: 0}, {}, "at most 2 Pirates",
      id="the Skull King's trick holds 2 other cards at 3 players"),
    R({}, {0: 5, 1: {"won": 0, "fourteens": 1}, 2: 0}, {}, "needs a trick",
      id="a 14 with no trick"),
    R({}, {0: 5, 1: {"won": 0, "mermaids_by_pirate": 1}, 2: 0}, {}, "needs a trick",
      id="a capture with no trick"),
    R({}, {0: {"won": 5, "harry": 1}, 1: 0, 2: 0}, {}, "needs the pirate abilities",
      id="Harry without abilities"),
    R(AB, {0: {"won": 5, "harry": 1}, 1: 0, 2: 0}, {}, "outside 0 to 5",
      id="Harry moves bid 5 to 6"),
    R(AB, {0: {"won": 5, "harry": 2}, 1: 0, 2: 0}, {}, "by −1, 0 or", id="Harry +2"),
    R(AB, {0: {"won": 4, "harry": -1}, 1: {"won": 1, "harry": 1}, 2: 0}, {},
      "one player can play Harry", id="two Harrys"),
    R(AB, {0: {"won": 5, "wager": 10}, 1: {"won": 0, "wager": 20}, 2: 0}, {},
      "one player can wager", id="two wagers"),
    R(AB, {0: {"won": 5, "wager": 0}, 1: {"won": 0, "wager": 0}, 2: 0}, {},
      "one player can wager", id="two wagers of 0"),
    R(AB, {0: {"won": 5, "wager": 15}, 1: 0, 2: 0}, {}, "0, 10 or 20", id="wager of 15"),
    R({}, {0: {"won": 5, "loot": 1}, 1: 0, 2: 0}, {}, "Loot is not in play",
      id="Loot not in play"),
    R({"loot": True}, {0: {"won": 5, "loot": 2}, 1: {"won": 0, "loot": 2},
                       2: {"won": 0, "loot": 1}}, {}, "at most 4",
      id="five Loot payouts in an older log"),
    R({}, {0: 5, 1: 0, 2: 0}, {"loot": [[1, 0]]}, "Loot is not in play", id="Loot pair, no Loot"),
    R({"loot": True}, {0: 5, 1: 0, 2: 0}, {"loot": [[1, 0], [2, 0], [1, 0]]},
      "only 2 Loot cards", id="three Loot pairs"),
    R({"loot": True}, {0: 5, 1: 0, 2: 0}, {"loot": [[1]]}, "who played it and who captured it",
      id="a Loot with no captor"),
    R({"loot": True}, {0: 5, 1: 0, 2: 0}, {"loot": [[1, None]]},
      "who played it and who captured it", id="a Loot captured by nobody named"),
    R({"loot": True}, {0: 5, 1: 0, 2: 0}, {"loot": [[0, 1]]}, "won no trick",
      id="a captor who won no trick"),
    R({"loot": True}, {0: 5, 1: 0, 2: 0}, {"loot": [[7, 0]]}, "not in this game",
      id="a Loot played by nobody at the table"),
    R({"loot": True}, {0: 5, 1: 0, 2: 0}, {"loot": "1,0"}, "recorded as pairs",
      id="Loot not as pairs"),
    R({"loot": True}, {0: {"won": 5, "loot": 1}, 1: 0, 2: 0}, {"loot": [[1, 0]]},
      "recorded as pairs", id="a Loot count beside the pairs"),
    R({}, {0: {"won": 5, "fourteens": -1}, 1: 0, 2: 0}, {}, "whole number", id="negative"),
]


@pytest.mark.parametrize("options, won, extra, message", RESULT_REFUSALS)
def test_result_refusals(options, won, extra, message):
    setup = game([0, 1, 2], way="swift_n_salty", **options)
    with pytest.raises(RuleError, match=re.escape(message)):
        scored(setup, {0: 5, 1: 0, 2: 0}, won, **extra)


def test_classic_refuses_2021_bonuses_in_the_result():
    setup = game([0, 1, 2], edition="classic", way="swift_n_salty")
    with pytest.raises(RuleError, match="classic"):
        scored(setup, {0: 5, 1: 0, 2: 0}, {0: {"won": 5, "fourteens": 1}, 1: 0, 2: 0})


def test_ghost_tricks_may_not_exceed_the_cards():
    setup = game([0, 1], way="swift_n_salty")
    with refuses("The tricks won add up to %(tricks)s, more than"):
        scored(setup, {0: 1, 1: 1}, {0: 4, 1: 2})


def test_three_players_cannot_fall_short_without_a_ghost():
    setup = game([0, 1, 2], edition="classic", way="swift_n_salty")
    with pytest.raises(RuleError, match="add up"):
        scored(setup, {0: 1, 1: 1, 2: 1}, {0: 1, 1: 1, 2: 1})


def test_no_result_before_the_reveal():
    setup = game([0, 1, 2])
    events = [ev("bid", round=1, seat=s, bid=0) for s in (0, 1, 2)]
    events.append(ev("result", round=1, results={"0": {"won": 1}, "1": {"won": 0},
                                                 "2": {"won": 0}}))
    with pytest.raises(RuleError, match="Reveal"):
        rules.replay(setup, events)


def test_nothing_after_the_last_round():
    setup = game([0, 1, 2], way="past_your_bedtime")
    events = play_round(1, {0: 1, 1: 0, 2: 0}, {0: 1, 1: 0, 2: 0})
    state = rules.replay(setup, events)
    assert state["finished"] and state["phase"] == "finished" and state["current"] is None
    with pytest.raises(RuleError, match="over"):
        rules.replay(setup, [*events, ev("bid", round=1, seat=0, bid=0)])


# ------------------------------------------------------------ corrections and ranks


def test_correcting_a_past_round_recomputes_every_later_total():
    setup = game([0, 1, 2], edition="classic")
    events = (play_round(1, {0: 1, 1: 0, 2: 0}, {0: 1, 1: 0, 2: 0})  # +20, +10, +10
              + play_round(2, {0: 1, 1: 1, 2: 0}, {0: 1, 1: 1, 2: 0})  # +20, +20, +20
              + play_round(3, {0: 0, 1: 2, 2: 1}, {0: 0, 1: 2, 2: 1}))  # +30, +40, +20
    state = rules.replay(setup, events)
    assert [r["totals"] for r in state["rounds"][:3]] == [
        {"0": 20, "1": 10, "2": 10}, {"0": 40, "1": 30, "2": 30}, {"0": 70, "1": 70, "2": 50}]
    # round 1 really was: seat 0 bid 0 and took the trick (-10), seat 2 bid 1 took 0 (-10)
    fix = ev("correct", round=1, bids={"0": 0, "1": 0, "2": 1},
             results={"0": {"won": 1}, "1": {"won": 0}, "2": {"won": 0}})
    state = rules.replay(setup, [*events, fix])
    rnd = state["rounds"][0]
    assert rnd["points"] == {"0": -10, "1": 10, "2": -10}
    assert rnd["bids"] == {"0": 0, "1": 0, "2": 1} and rnd["corrected"] is True
    assert [r["totals"] for r in state["rounds"][:3]] == [
        {"0": -10, "1": 10, "2": -10}, {"0": 10, "1": 30, "2": 10}, {"0": 40, "1": 70, "2": 30}]
    assert state["totals"] == {"0": 40, "1": 70, "2": 30}
    assert state["current"] == 3  # still bidding round 4


def test_a_correction_keeps_the_recorded_shot_unless_replaced():
    setup = game([0, 1, 2], way="swift_n_salty", scoring="rascal")
    events = [ev("bid", round=1, seat=0, bid=5, shot="cannonball"),
              ev("bid", round=1, seat=1, bid=0), ev("bid", round=1, seat=2, bid=0),
              ev("reveal_bids", round=1),
              ev("result", round=1, results={"0": {"won": 5}, "1": {"won": 0},
                                             "2": {"won": 0}})]
    assert rules.replay(setup, events)["totals"]["0"] == 75  # 15 x 5
    fix = ev("correct", round=1, bids={"0": 4, "1": 0, "2": 0},
             results={"0": {"won": 4}, "1": {"won": 1}, "2": {"won": 0}})
    assert rules.replay(setup, [*events, fix])["totals"] == {"0": 75, "1": 25, "2": 50}
    fix["data"]["bids"]["0"] = {"bid": 4, "shot": None}
    assert rules.replay(setup, [*events, fix])["totals"]["0"] == 50


@pytest.mark.parametrize(
    "data, message",
    [
        ({"round": 2, "bids": {"0": 0, "1": 0, "2": 1},
          "results": {"0": {"won": 1}, "1": {"won": 0}, "2": {"won": 0}}},
         "has not been scored yet"),
        ({"round": 1, "bids": {"0": 0, "1": 0},
          "results": {"0": {"won": 1}, "1": {"won": 0}, "2": {"won": 0}}},
         "Every player needs a bid"),
        ({"round": 1, "bids": {"0": 2, "1": 0, "2": 0},
          "results": {"0": {"won": 1}, "1": {"won": 0}, "2": {"won": 0}}},
         "A bid must be between"),  # above the round's cards
        ({"round": 1, "bids": {"0": 0, "1": 0, "2": 1},
          "results": {"0": {"won": 1}, "1": {"won": 1}, "2": {"won": 0}}},
         "The tricks won add up to %(tricks)s, not"),  # 2 tricks of 1
    ],
)
def test_correction_refusals(data, message):
    setup = game([0, 1, 2], edition="classic")
    events = play_round(1, {0: 1, 1: 0, 2: 0}, {0: 1, 1: 0, 2: 0})
    with refuses(message):
        rules.replay(setup, [*events, ev("correct", **data)])


def test_ties_share_a_rank_and_all_tied_leaders_are_named():
    assert rules.ranks({"0": 50, "1": 50, "2": 20, "3": 60}) == {"0": 2, "1": 2, "2": 4, "3": 1}
    setup = game([0, 1, 2], edition="classic", way="past_your_bedtime")
    state = rules.replay(setup, play_round(1, {0: 0, 1: 0, 2: 1}, {0: 0, 1: 0, 2: 1}))
    assert state["totals"] == {"0": 10, "1": 10, "2": 20}
    state = rules.replay(setup, play_round(1, {0: 0, 1: 0, 2: 0}, {0: 0, 1: 0, 2: 1}))
    assert state["totals"] == {"0": 10, "1": 10, "2": -10}
    assert state["ranks"] == {"0": 1, "1": 1, "2": 3}
    assert state["leader"] == [0, 1]


def test_no_leader_before_any_round_is_scored():
    state = rules.replay(game([0, 1, 2]), [])
    assert state["leader"] == [] and state["ranks"] == {"0": 1, "1": 1, "2": 1}


# ------------------------------------------------------------ whole games by hand


def test_a_whole_classic_game_for_six():
    # each round r: seat 0 bids r and takes all r tricks (+20r), seat 1 bids 1 and takes
    # none (-10), seats 2-5 bid 0 and take none (+10r). Over r = 1..10 (sum 55):
    # seat 0: 20 x 55 = 1100; seat 1: -10 x 10 = -100; others 10 x 55 = 550.
    setup = game(list(range(6)), edition="classic")
    events = []
    for r in range(1, 11):
        events += play_round(r, {0: r, 1: 1, 2: 0, 3: 0, 4: 0, 5: 0},
                             {0: r, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0})
    state = rules.replay(setup, events)
    assert state["finished"]
    assert state["totals"] == {"0": 1100, "1": -100, "2": 550, "3": 550, "4": 550, "5": 550}
    assert state["ranks"] == {"0": 1, "1": 6, "2": 2, "3": 2, "4": 2, "5": 2}
    assert state["leader"] == [0]
    assert json.loads(json.dumps(state)) == state


def test_a_whole_2021_rascal_game_for_six():
    # each round r: seat 0 bids r, takes r (10r); seat 1 bids 1, takes 0 (glancing: 5r);
    # seats 2-5 bid 0, take 0 (10r). Totals: 550, 275, 550 x 4.
    setup = game(list(range(6)), scoring="rascal")
    events = []
    for r in range(1, 11):
        events += play_round(r, {0: r, 1: 1, 2: 0, 3: 0, 4: 0, 5: 0},
                             {0: r, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0})
    state = rules.replay(setup, events)
    assert state["totals"] == {"0": 550, "1": 275, "2": 550, "3": 550, "4": 550, "5": 550}
    assert state["ranks"]["1"] == 6 and state["leader"] == [0, 2, 3, 4, 5]


# ------------------------------------------------------------ history lines


def test_a_bid_history_line_never_shows_the_bid():
    message, params = rules.describe(ev("bid", phone=2, round=3, seat=2, bid=7))
    assert message == "%(player)s bid in round %(round)s"
    assert params == {"player": 2, "round": 3}
    assert "7" not in message % params


@pytest.mark.parametrize("kind", ["reveal_bids", "result", "correct"])
def test_other_history_lines_name_the_round(kind):
    message, params = rules.describe(ev(kind, round=4, bids={"0": 9}))
    assert params == {"round": 4} and "4" in message % params


# ------------------------------------------------------------ Loot: pairs


LOOT = {"loot": True}


def test_a_loot_pays_both_its_player_and_its_captor_when_both_bid_exactly():
    setup = game([0, 1, 2], way="swift_n_salty", **LOOT)
    # seat 0 bid 2 took 2 and captured seat 1's Loot; seat 1 bid 0 took 0: both exact
    state = scored(setup, {0: 2, 1: 0, 2: 3}, {0: 2, 1: 0, 2: 3}, loot=[[1, 0]])
    assert state["rounds"][0]["points"] == {"0": 60, "1": 70, "2": 60}  # 40+20, 50+20, 60
    assert state["rounds"][0]["loot"] == [[1, 0]]


def test_a_loot_pays_nobody_when_one_of_the_pair_missed():
    """A Loot player who bid 0 and took none, with a captor who bid 2 and took 1: 10 × 3
    cards = 30, not 50 (docs/rules.md#skull-king-2021: both must bid exactly)."""
    setup = game([0, 1, 2], way="custom", rounds=[3], **LOOT)
    state = scored(setup, {0: 0, 1: 2, 2: 1}, {0: 0, 1: 1, 2: 2}, loot=[[0, 1]])
    assert state["rounds"][0]["points"] == {"0": 30, "1": -10, "2": -10}


def test_a_loot_captured_by_its_own_player_pays_nothing():
    setup = game([0, 1, 2], way="swift_n_salty", **LOOT)
    state = scored(setup, {0: 2, 1: 0, 2: 3}, {0: 2, 1: 0, 2: 3}, loot=[[0, 0]])
    assert state["rounds"][0]["points"] == {"0": 40, "1": 50, "2": 60}


def test_two_loots_of_one_pair_pay_twice_and_a_player_can_be_in_both_alliances():
    setup = game([0, 1, 2], way="swift_n_salty", **LOOT)
    state = scored(setup, {0: 2, 1: 0, 2: 3}, {0: 2, 1: 0, 2: 3}, loot=[[1, 0], [1, 0]])
    assert state["rounds"][0]["points"] == {"0": 80, "1": 90, "2": 60}
    state = scored(setup, {0: 2, 1: 0, 2: 3}, {0: 2, 1: 0, 2: 3}, loot=[[1, 0], [2, 0]])
    assert state["rounds"][0]["points"] == {"0": 80, "1": 70, "2": 80}


def test_loot_follows_harrys_changed_bid():
    setup = game([0, 1, 2], way="swift_n_salty", abilities=True, **LOOT)
    # seat 0 bid 1, took 2, Harry +1: exact after all, so the Loot with seat 1 pays
    state = scored(setup, {0: 1, 1: 0, 2: 3},
                   {0: {"won": 2, "harry": 1}, 1: 0, 2: 3}, loot=[[1, 0]])
    assert state["rounds"][0]["points"] == {"0": 60, "1": 70, "2": 60}


def test_under_rascals_scoring_a_loot_pays_in_full_or_not_at_all():
    setup = game([0, 1, 2], way="swift_n_salty", scoring="rascal", **LOOT)
    # both direct hits: 50 + 20 each; off by one (glancing blow): half of 50, no Loot
    state = scored(setup, {0: 2, 1: 0, 2: 3}, {0: 2, 1: 0, 2: 3}, loot=[[1, 0]])
    assert state["rounds"][0]["points"] == {"0": 70, "1": 70, "2": 50}
    state = scored(setup, {0: 2, 1: 1, 2: 2}, {0: 2, 1: 0, 2: 3}, loot=[[1, 0]])
    assert state["rounds"][0]["points"] == {"0": 50, "1": 25, "2": 25}


def test_an_older_logs_loot_counts_still_replay_as_scored():
    setup = game([0, 1, 2], way="swift_n_salty", **LOOT)
    state = scored(setup, {0: 2, 1: 0, 2: 3},
                   {0: {"won": 2, "loot": 1}, 1: {"won": 0, "loot": 1}, 2: 3})
    assert state["rounds"][0]["points"] == {"0": 60, "1": 70, "2": 60}


def test_a_correction_records_the_loot_pairs_again():
    setup = game([0, 1, 2], way="swift_n_salty", **LOOT)
    events = play_round(1, {0: 2, 1: 0, 2: 3}, {0: 2, 1: 0, 2: 3}, loot=[[1, 0]])
    fix = ev("correct", round=1, bids={"0": 2, "1": 0, "2": 3}, loot=[],
             results={"0": {"won": 2}, "1": {"won": 0}, "2": {"won": 3}})
    state = rules.replay(setup, [*events, fix])
    assert state["rounds"][0]["points"] == {"0": 40, "1": 50, "2": 60}
    assert state["rounds"][0]["loot"] == []


# ------------------------------------------------------------ stale writes


def bid_ev(seat, round_=1, phone=None):
    return ev("bid", phone=phone, round=round_, seat=seat, bid=0)


@pytest.mark.parametrize("later, event, stale", [
    R([bid_ev(1, phone=1)], bid_ev(0), False, id="another seat's bid: no conflict"),
    R([bid_ev(1, phone=1), bid_ev(2, phone=2)], bid_ev(3), False, id="several other bids"),
    R([bid_ev(0, phone=0)], bid_ev(0), True, id="the same seat's bid changed"),
    R([bid_ev(0, round_=2)], bid_ev(0), False, id="the same seat in another round"),
    R([ev("reveal_bids", round=1)], bid_ev(0), True, id="a bid after Yo-ho-ho"),
    R([ev("undo")], bid_ev(0), True, id="a bid after an undo"),
    R([ev("redo")], bid_ev(0), True, id="a bid after a redo"),
    R([ev("result", round=1)], bid_ev(0), True, id="a bid after the result"),
    R([ev("correct", round=1)], bid_ev(0), True, id="a bid after a correction"),
    R([bid_ev(2, phone=2), bid_ev(2, phone=2)], ev("reveal_bids", round=1), False,
      id="Yo-ho-ho after a late bid and its change"),
    R([ev("undo")], ev("reveal_bids", round=1), True, id="Yo-ho-ho after an undo"),
    R([ev("reveal_bids", round=1)], ev("reveal_bids", round=1), True, id="Yo-ho-ho twice"),
    R([bid_ev(2, round_=4, phone=2)], ev("correct", round=1), False,
      id="a correction after a bid of the round being bid"),
    R([ev("result", round=3)], ev("correct", round=1), True, id="a correction after a result"),
    R([bid_ev(1, phone=1)], ev("result", round=1), True, id="a result after anything"),
    R([bid_ev(1, phone=1)], ev("undo"), True, id="an undo after anything"),
    R([], bid_ev(0), False, id="nothing since"),
])
def test_a_write_is_stale_only_when_what_came_since_touches_it(later, event, stale):
    assert rules.conflicts(later, event) is stale


def test_start_defaults_options_left_empty():
    setup = rules.start([3, 5, 7], {"edition": None, "first_dealer": None, "rounds": None})
    assert (setup["edition"], setup["scoring"], setup["way"], setup["first_dealer"]) == \
        ("2021", "skull_king", "standard", 3)
    assert setup["rounds"] == list(range(1, 11)) and setup["capped"] is False


# ------------------------------------------------------------ house rules
# docs/rules.md#skull-king-house-rules: both off by default; the scorer takes them as
# arguments, its older calls score as before.


@pytest.mark.parametrize("kwargs, without, with_rule", [
    # bid 2, took 3, two Pirates by the Skull King (classic +30 each): -10 / -10 + 60
    ({"cards": 5, "bid": 2, "won": 3, "edition": "classic", "pirates_by_skull_king": 2},
     -10, 50),
    # bid 0 with 5 cards, took a trick holding the black 14 (2021 +20): -50 / -30
    ({"cards": 5, "bid": 0, "won": 1, "black_fourteen": 1}, -50, -30),
    # bid 3, took 1, a Mermaid took the Skull King (2021 +40) and a 14 (+10): -20 / +30
    ({"cards": 6, "bid": 3, "won": 1, "skull_king_by_mermaid": 1, "fourteens": 1}, -20, 30),
    # an exact bid is the same either way: 2 x 20 + 30
    ({"cards": 4, "bid": 2, "won": 2, "pirates_by_skull_king": 1}, 70, 70),
    # a missed bid with no bonus is the same either way
    ({"cards": 4, "bid": 2, "won": 0}, -20, -20),
    # the wager is no bonus: still lost on a miss (-10 - 20 + 20 for the Mermaid)
    ({"cards": 4, "bid": 1, "won": 2, "mermaids_by_pirate": 1, "wager": 20}, -30, -10),
])
def test_bonuses_count_on_a_missed_bid_only_under_the_house_rule(kwargs, without, with_rule):
    assert round_score(**kwargs) == without
    assert round_score(**kwargs, missed_bonuses=False) == without
    assert round_score(**kwargs, missed_bonuses=True) == with_rule


def test_the_house_rule_is_skull_king_scorings_only():
    with pytest.raises(RuleError, match="house rule of Skull King scoring"):
        round_score(cards=3, bid=1, won=2, scoring="rascal", missed_bonuses=True)
    with pytest.raises(RuleError, match="house rule of Skull King scoring"):
        game([0, 1, 2], scoring="rascal", missed_bonuses=True)
    with pytest.raises(RuleError, match="yes or no"):
        round_score(cards=3, bid=1, won=1, missed_bonuses=1)


@pytest.mark.parametrize("adjustment, points", [(0, 40), (-30, 10), (200, 240),
                                                (-200, -160)])
def test_an_adjustment_is_added_after_the_scoring(adjustment, points):
    assert round_score(cards=3, bid=2, won=2, adjustment=adjustment) == points


def test_an_adjustment_goes_below_rascals_floor():
    # off by 2 under Rascal's scoring is 0, never negative; the adjustment comes after
    assert round_score(cards=4, bid=3, won=1, scoring="rascal", adjustment=-20) == -20


@pytest.mark.parametrize("adjustment", [201, -201, 2.5, "10", True, None])
def test_an_adjustment_out_of_range_or_not_whole_is_refused(adjustment):
    with pytest.raises(RuleError, match="whole number from"):
        round_score(cards=3, bid=2, won=2, adjustment=adjustment)


def test_house_rules_are_off_by_default_and_left_out_of_the_setup():
    setup = game([0, 1, 2])
    assert "missed_bonuses" not in setup and "adjustments" not in setup
    assert house_rules(setup) == []
    setup = game([0, 1, 2], missed_bonuses=True, adjustments=True)
    assert house_rules(setup) == ["missed_bonuses", "adjustments"]
    assert game([0, 1, 2], missed_bonuses=False) == game([0, 1, 2])
    with pytest.raises(RuleError, match="yes or no"):
        game([0, 1, 2], adjustments="yes")


def test_loot_pays_on_missed_bids_under_the_house_rule():
    """Seat 0 plays a Loot that seat 1 captures; seat 1 bid 1 and took 2: missed. Without
    the house rule the alliance pays nobody; with it +20 each."""
    events = play_round(1, {0: 0, 1: 1, 2: 1},
                        {0: 0, 1: 2, 2: 0}, loot=[[0, 1]])
    plain = rules.replay(game([0, 1, 2], loot=True, way="custom", rounds=[2]), events)
    house = rules.replay(game([0, 1, 2], loot=True, way="custom", rounds=[2],
                              missed_bonuses=True), events)
    # seat 0 bid 0, took 0 (+20); seat 1 missed by 1 (-10); seat 2 missed by 1 (-10)
    assert plain["rounds"][0]["points"] == {"0": 20, "1": -10, "2": -10}
    assert house["rounds"][0]["points"] == {"0": 40, "1": 10, "2": -10}


def adjust(round_, seat, amount, reason="Misdeal"):
    return ev("adjust", round=round_, seat=seat, amount=amount, reason=reason)


def test_an_adjustment_moves_its_round_and_every_later_total():
    setup = game([0, 1, 2], way="custom", rounds=[1, 1], adjustments=True)
    events = (play_round(1, {0: 1, 1: 0, 2: 0}, {0: 1, 1: 0, 2: 0})
              + [adjust(1, 1, -25)]
              + play_round(2, {0: 0, 1: 1, 2: 0}, {0: 0, 1: 1, 2: 0}))
    state = rules.replay(setup, events)
    assert state["rounds"][0]["points"] == {"0": 20, "1": -15, "2": 10}
    assert state["rounds"][0]["adjust"] == {"1": {"amount": -25, "reason": "Misdeal"}}
    assert state["totals"] == {"0": 30, "1": 5, "2": 20}
    assert state["ranks"] == {"0": 1, "1": 3, "2": 2}


def test_a_later_adjustment_replaces_the_earlier_and_0_takes_it_back():
    setup = game([0, 1, 2], way="custom", rounds=[1], adjustments=True)
    base = play_round(1, {0: 1, 1: 0, 2: 0}, {0: 1, 1: 0, 2: 0})
    state = rules.replay(setup, base + [adjust(1, 0, 30), adjust(1, 0, -10, "Recount")])
    assert state["totals"]["0"] == 10
    state = rules.replay(setup, base + [adjust(1, 0, 30), adjust(1, 0, 0, "Oops")])
    assert state["totals"]["0"] == 20 and state["rounds"][0]["adjust"] == {}


def test_a_correction_keeps_the_adjustment():
    setup = game([0, 1, 2], way="custom", rounds=[2], adjustments=True)
    events = play_round(1, {0: 1, 1: 0, 2: 1}, {0: 1, 1: 0, 2: 1}) + [adjust(1, 2, 15)]
    events.append(ev("correct", round=1, bids={"0": 2, "1": 0, "2": 0},
                     results={"0": {"won": 2}, "1": {"won": 0}, "2": {"won": 0}}))
    state = rules.replay(setup, events)
    assert state["rounds"][0]["points"] == {"0": 40, "1": 20, "2": 35}


@pytest.mark.parametrize("data, words", [
    ({"round": 2, "seat": 0, "amount": 10, "reason": "x"}, "has not been scored yet"),
    ({"round": 1, "seat": 7, "amount": 10, "reason": "x"}, "not in this game"),
    ({"round": 1, "seat": 0, "amount": 201, "reason": "x"}, "whole number from"),
    ({"round": 1, "seat": 0, "amount": "10", "reason": "x"}, "whole number from"),
    ({"round": 1, "seat": 0, "amount": 10, "reason": ""}, "short reason"),
    ({"round": 1, "seat": 0, "amount": 10, "reason": "y" * 41}, "too long"),
    ({"round": 1, "seat": 0, "amount": 10, "reason": "a\u200bb"}, "cannot be shown"),
    ({"round": 1, "seat": 0, "amount": 10, "reason": "x", "why": 1}, "Unknown field"),
])
def test_a_bad_adjustment_is_refused(data, words):
    setup = game([0, 1, 2], way="custom", rounds=[1, 1], adjustments=True)
    events = play_round(1, {0: 1, 1: 0, 2: 0}, {0: 1, 1: 0, 2: 0})
    with pytest.raises(RuleError, match=words):
        rules.replay(setup, [*events, ev("adjust", **data)])


def test_an_adjustment_needs_the_house_rule():
    setup = game([0, 1, 2], way="custom", rounds=[1])
    events = play_round(1, {0: 1, 1: 0, 2: 0}, {0: 1, 1: 0, 2: 0})
    with pytest.raises(RuleError, match="without adjustments"):
        rules.replay(setup, [*events, adjust(1, 0, 10)])


def test_an_adjustment_is_stale_only_after_a_move_or_the_same_players_adjustment():
    mine = {"type": "adjust", "data": {"round": 1, "seat": 0, "amount": 5, "reason": "x"}}
    assert not rules.conflicts([ev("bid", round=2, seat=1, bid=0)], mine)
    assert not rules.conflicts([{"type": "adjust", "data": {"round": 1, "seat": 1}}], mine)
    assert rules.conflicts([{"type": "adjust", "data": {"round": 1, "seat": 0}}], mine)
    assert rules.conflicts([ev("reveal_bids", round=2)], mine)


def test_the_history_names_the_adjustment_and_its_reason():
    assert rules.describe(adjust(2, 1, -10, "Misdeal")) == (
        "%(player)s adjusted %(amount)s points in round %(round)s: %(reason)s",
        {"player": 1, "round": 2, "reason": "Misdeal", "amount": "−10"})
    assert rules.describe(adjust(2, 1, 0, "Oops"))[0] == \
        "%(player)s's adjustment in round %(round)s taken back (%(reason)s)"


# ------------------------------------------------------------ deck rulings
# docs/rules.md#skull-king-deck-rulings: 7–8 players with and without the advanced cards,
# and Loot in the two-player game.


@pytest.mark.parametrize("options, deck", [
    ({}, 70), ({"loot": True}, 72), ({"kraken": True}, 71), ({"white_whale": True}, 71),
    ({"kraken": True, "white_whale": True}, 72),
    ({"loot": True, "kraken": True, "white_whale": True, "abilities": True}, 74),
])
def test_the_advanced_cards_are_dealt_from_the_deck(options, deck):
    assert deck_size("2021", options) == deck
    assert deck_size("classic") == 66


@pytest.mark.parametrize("players, deck, most", [
    (8, 70, 8), (8, 71, 8), (8, 72, 9), (8, 74, 9),
    (7, 70, 10), (7, 74, 10), (2, 74, 10), (6, 66, 10),
])
def test_the_cards_a_round_deals_count_the_whole_deck(players, deck, most):
    edition = "classic" if deck == 66 else "2021"
    assert max_cards(players, edition, deck) == most


ALL_ADVANCED = {"loot": True, "kraken": True, "white_whale": True}


def test_eight_players_with_the_74_card_deck_get_9_cards_in_rounds_9_and_10():
    setup = game(list(range(8)), **ALL_ADVANCED)
    assert setup["rounds"] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 9]
    assert setup["max_cards"] == 9 and setup["capped"] is True
    assert game(list(range(8)), loot=True)["rounds"][-2:] == [9, 9]
    assert game(list(range(8)), kraken=True)["rounds"][-2:] == [8, 8]  # 71 cards
    assert game(list(range(8)), way="broadside", **ALL_ADVANCED)["rounds"] == [9] * 10
    assert game(list(range(7)), **ALL_ADVANCED)["capped"] is False


def test_a_custom_round_of_9_cards_needs_the_cards_for_it():
    assert game(list(range(8)), way="custom", rounds=[9], loot=True)["rounds"] == [9]
    with pytest.raises(RuleError, match="1 to 8 cards"):
        game(list(range(8)), way="custom", rounds=[9])


def test_a_round_of_9_cards_for_8_players_scores_and_its_tricks_add_up():
    setup = game(list(range(8)), way="custom", rounds=[9], **ALL_ADVANCED)
    bids = dict.fromkeys(range(8), 1) | {7: 2}
    won = dict.fromkeys(range(8), 1) | {7: 0}
    state = rules.replay(setup, play_round(1, bids, won, discarded=2))
    assert state["finished"] and state["totals"]["0"] == 20 and state["totals"]["7"] == -20


def test_a_setup_made_before_the_deck_ruling_still_imports_as_it_was_played():
    from companion.core.registry import SetupMismatch
    from companion.skullking import results

    older = rules.start(list(range(8)), ALL_ADVANCED, advanced_in_deck=False)
    assert older["rounds"][-2:] == [8, 8]
    assert results.restore(older, list(range(8)), random.Random(1)) == older
    now = game(list(range(8)), **ALL_ADVANCED)
    assert results.restore(now, list(range(8)), random.Random(1)) == now
    with pytest.raises(SetupMismatch):
        results.restore({**now, "rounds": [1, 2, 3, 4, 5, 6, 7, 8, 10, 10]},
                        list(range(8)), random.Random(1))


def test_loot_is_played_in_the_two_player_game_between_the_two_players():
    """Two players and Graybeard's ghost, 3 hands: Loot is in play; seat 0's Loot captured
    by seat 1 pays both on exact bids. An alliance with the ghost (he neither bids nor
    scores) is not recorded and pays nothing: the ghost is no seat."""
    setup = game([0, 1], way="custom", rounds=[3], loot=True)
    assert setup["ghost"] is True and setup["loot"] is True
    state = rules.replay(setup, play_round(1, {0: 1, 1: 1}, {0: 1, 1: 1}, loot=[[0, 1]]))
    assert state["totals"] == {"0": 40, "1": 40}
    with pytest.raises(RuleError, match="not in this game"):
        rules.replay(setup, play_round(1, {0: 1, 1: 1}, {0: 1, 1: 1}, loot=[[0, 2]]))
