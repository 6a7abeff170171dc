"""What a Special card can change, docs/rules.md#kraken-specials: the seed breaks off
before the cards' abilities, so once a Special is face up the table records what it did
with generic moves (the marker passed, a card revealed out of turn, a role shown, a
Treasure or Empty box in or out), each an ordinary event that the counts, the end check
and the history follow; and a note, in any game."""

import random

import pytest

from companion.core.errors import RuleError
from companion.core.events import UNDO, effective
from companion.kraken import rules
from companion.kraken.rules import describe, replay, start


def game(n=4, explorers=None, **options):
    setup = start(list(range(n)), {"specials": True, **options}, rng=random.Random(3))
    if explorers is not None:
        setup["roles"] = {str(s): "explorer" if s < explorers else "skeleton"
                          for s in range(n)}
    return setup


def ev(type_, **data):
    return {"type": type_, "data": data, "seat": None}


def marker(seat):
    return ev("marker", seat=seat)


def reveal(seat, card, special=None):
    return ev("reveal", seat=seat, card=card, **({"special": special} if special else {}))


def out_of_turn(seat, card, special=None):
    return ev("special_reveal", seat=seat, card=card,
              **({"special": special} if special else {}))


#: Seat 0 takes the marker and reveals seat 1's card: a Special, Captain's Obsession.
OPENING = [marker(0), reveal(1, "special", "captains_obsession")]


def refused(setup, events, match):
    with pytest.raises(RuleError, match=match):
        replay(setup, events)


# --- only once a Special card is face up ------------------------------------------


@pytest.mark.parametrize("move", [
    ev("special_marker", seat=2), out_of_turn(2, "empty"), ev("special_role", seat=1, to=2),
    ev("special_count", kind="treasure", by=-1)])
def test_no_special_move_before_a_special_is_revealed(move):
    refused(game(), [marker(0), reveal(1, "empty"), move], "No Special card")


def test_no_special_move_in_a_game_without_the_specials():
    setup = start([0, 1, 2, 3], {}, rng=random.Random(1))
    refused(setup, [marker(0), reveal(1, "empty"), ev("special_marker", seat=2)],
            "not in this game")


# --- the action marker --------------------------------------------------------------


def test_a_special_passes_the_marker_and_the_next_action_is_the_new_holders():
    state = replay(game(), [*OPENING, ev("special_marker", seat=3)])
    assert state["marker"] == 3
    assert (state["round"], state["action"]) == (1, 2)  # moving the marker is no action
    # The new holder acts: they reveal someone else's card, never their own.
    refused(game(), [*OPENING, ev("special_marker", seat=3), reveal(3, "empty")],
            "cannot reveal their own")
    after = replay(game(), [*OPENING, ev("special_marker", seat=3), reveal(0, "empty")])
    assert after["marker"] == 0 and after["action"] == 3


def test_the_marker_cannot_pass_to_its_holder():
    # After the opening seat 1 holds the marker (their card was revealed).
    refused(game(), [*OPENING, ev("special_marker", seat=1)], "already")


def test_undo_puts_the_marker_back():
    events = [*OPENING, ev("special_marker", seat=3), ev(UNDO)]
    assert replay(game(), effective(events))["marker"] == 1


# --- a card revealed out of turn ----------------------------------------------------


def test_a_card_out_of_turn_is_counted_but_is_no_action():
    state = replay(game(), [*OPENING, out_of_turn(1, "treasure")])
    assert state["revealed"]["treasure"] == 1
    assert state["treasures_to_find"] == 3
    assert state["cards_in_front"]["1"] == 3  # 5 dealt, the Special and the Treasure up
    assert (state["round"], state["action"]) == (1, 2)
    assert state["marker"] == 1
    assert state["reveals"][-1] == {"seat": 1, "card": "treasure", "special": None,
                                    "round": 1, "action": 1, "out_of_turn": True}


def test_a_round_still_takes_one_action_per_player():
    # 4 players: 4 actions end round 1, however many cards came up out of turn.
    events = [*OPENING, out_of_turn(2, "empty"), out_of_turn(3, "empty"),
              reveal(2, "empty"), reveal(3, "empty")]
    state = replay(game(), events)
    assert state["round_over_deal"] is None and state["round"] == 1
    state = replay(game(), [*events, reveal(0, "empty")])
    assert state["round_over_deal"] == 4 and state["round"] == 2


def test_the_kraken_out_of_turn_ends_the_game_for_the_skeletons():
    state = replay(game(explorers=2), [*OPENING, out_of_turn(0, "kraken")])
    assert state["finished"] and state["outcome"] == "skeletons"
    assert state["reason"] == "kraken"
    assert sorted(state["winners"]) == [2, 3]
    assert (state["round"], state["action"]) == (1, 1)  # where the last action left it


def test_the_last_treasure_out_of_turn_ends_the_game_for_the_explorers():
    events = [*OPENING, reveal(2, "treasure"), reveal(3, "treasure"), reveal(0, "treasure"),
              out_of_turn(2, "treasure")]
    state = replay(game(explorers=2), events)
    assert state["outcome"] == "explorers" and state["reason"] == "all_treasure"


def test_undo_of_the_ending_card_reopens_the_game():
    events = [*OPENING, out_of_turn(0, "kraken"), ev(UNDO)]
    state = replay(game(), effective(events))
    assert not state["finished"] and state["revealed"]["kraken"] == 0
    assert state["cards_in_front"]["0"] == 5


def test_a_card_out_of_turn_obeys_the_deck():
    refused(game(), [*OPENING, out_of_turn(2, "kraken"), out_of_turn(3, "kraken")],
            "game is over")
    refused(game(), [*OPENING, out_of_turn(2, "special", "captains_obsession")],
            "already been revealed")
    refused(game(), [*OPENING, out_of_turn(7, "empty")], "not playing")
    # Any face-down card may come up, the marker holder's too (seat 1 holds it).
    assert replay(game(), [*OPENING, out_of_turn(1, "empty")])["revealed"]["empty"] == 1


def test_a_player_without_face_down_cards_has_nothing_to_reveal_out_of_turn():
    events = [*OPENING, *[out_of_turn(2, "empty")] * 5]
    refused(game(), [*events, out_of_turn(2, "empty")], "no face-down card")


# --- a role shown -------------------------------------------------------------------


def test_a_role_shown_names_two_seats_and_never_the_role():
    event = ev("special_role", seat=2, to=0)
    state = replay(game(), [*OPENING, event])
    assert state["shown"] == [{"seat": 2, "to": 0}]
    assert set(event["data"]) == {"seat", "to"}
    line, params = describe(event)
    assert params == {"seat": 2, "to": 0}
    assert "explorer" not in line.lower() and "skeleton" not in line.lower()


def test_a_role_is_shown_to_someone_else_once():
    refused(game(), [*OPENING, ev("special_role", seat=2, to=2)], "own role")
    refused(game(), [*OPENING, ev("special_role", seat=2, to=0),
                     ev("special_role", seat=2, to=0)], "already")
    refused(game(), [*OPENING, ev("special_role", seat=2, to=9)], "not playing")


def test_undo_hides_the_role_again():
    events = [*OPENING, ev("special_role", seat=2, to=0), ev(UNDO)]
    assert replay(game(), effective(events))["shown"] == []


# --- a Treasure or Empty box in or out ----------------------------------------------


def test_a_treasure_out_of_the_game_lowers_the_explorers_goal():
    state = replay(game(), [*OPENING, ev("special_count", kind="treasure", by=-1)])
    assert state["treasure_pile"] == 3 and state["treasures_to_find"] == 3
    assert state["hidden"]["treasure"] == 3


def test_a_treasure_into_the_game_raises_it():
    state = replay(game(), [*OPENING, ev("special_count", kind="treasure", by=1)])
    assert state["treasure_pile"] == 5 and state["treasures_to_find"] == 5
    assert state["hidden"]["treasure"] == 5


def test_taking_out_the_last_hidden_treasure_wins_it_for_the_explorers():
    events = [*OPENING, reveal(2, "treasure"), reveal(3, "treasure"), reveal(0, "treasure"),
              ev("special_count", kind="treasure", by=-1)]
    state = replay(game(explorers=2), events)
    assert state["finished"] and state["outcome"] == "explorers"
    assert state["reason"] == "all_treasure"
    undone = replay(game(explorers=2), effective([*events, ev(UNDO)]))
    assert not undone["finished"] and undone["treasures_to_find"] == 1


def test_empty_boxes_in_and_out():
    state = replay(game(), [*OPENING, ev("special_count", kind="empty", by=-1)])
    assert state["hidden"]["empty"] == 9  # 4 players with the Specials: 10 Empty boxes
    state = replay(game(), [*OPENING, ev("special_count", kind="empty", by=1)])
    assert state["hidden"]["empty"] == 11


def test_a_count_cannot_go_below_what_is_face_down_or_above_the_box():
    # 3 players with the Curse: the pile is exactly 2 Treasures and 1 Curse.
    setup = game(3, curse=True)
    events = [marker(0), reveal(1, "special", "lost_treasure"), reveal(2, "treasure"),
              reveal(0, "treasure")]
    assert replay(setup, events)["hidden_range"]["treasure"] == [0, 0]
    refused(setup, [*events, ev("special_count", kind="treasure", by=-1)],
            "No Treasure is still face-down")
    eight = start(list(range(8)), {"specials": True}, rng=random.Random(1))
    events = [marker(0), reveal(1, "special", "lost_treasure")]
    refused(eight, [*events, ev("special_count", kind="treasure", by=1)], "only 8")
    refused(game(), [*OPENING, ev("special_count", kind="kraken", by=1)], "which count")
    refused(game(), [*OPENING, ev("special_count", kind="treasure", by=2)], "which count")
    refused(game(), [*OPENING, ev("special_count", kind="treasure", by=True)], "which count")


def test_a_treasure_taken_out_cannot_then_be_revealed():
    events = [*OPENING, ev("special_count", kind="treasure", by=-1), reveal(2, "treasure"),
              reveal(3, "treasure"), reveal(0, "treasure")]
    state = replay(game(explorers=2), events)
    assert state["outcome"] == "explorers"  # 3 of the 3 left


def test_with_the_curse_a_treasure_out_shifts_the_pile():
    setup = game(6, curse=True)
    state = replay(setup, [marker(0), reveal(1, "special", "lost_treasure"),
                           ev("special_count", kind="treasure", by=-1)])
    assert state["treasure_pile"] == 5 and state["hidden"]["treasure_pile"] == 5
    # 6 players: 3-5 Treasures, 1-3 Curses; one Treasure out: 2-4 and still 1-3.
    assert state["hidden_range"]["treasure"] == [2, 4]
    assert state["hidden_range"]["curse"] == [1, 3]


# --- a note -------------------------------------------------------------------------


def test_a_note_goes_into_the_history_and_changes_nothing():
    before = replay(game(), OPENING)
    after = replay(game(), [*OPENING, ev("note", text="Mina swapped two cards")])
    assert after == before
    assert describe(ev("note", text="Mina swapped two cards")) == (
        "Note: %(text)s", {"text": "Mina swapped two cards"})


def test_a_note_is_allowed_without_the_specials():
    setup = start([0, 1, 2], {}, rng=random.Random(1))
    assert not replay(setup, [ev("note", text="we restarted round 1")])["finished"]


@pytest.mark.parametrize("text", ["", "   ", "x" * (rules.NOTE_MAX + 1), "two\nlines", 5])
def test_a_note_is_one_short_line(text):
    refused(game(), [ev("note", text=text)], "note")


def test_nothing_is_recorded_after_the_end():
    events = [*OPENING, out_of_turn(0, "kraken")]
    for move in (ev("special_marker", seat=2), ev("note", text="gg")):
        refused(game(), [*events, move], "game is over")


# --- the history --------------------------------------------------------------------


@pytest.mark.parametrize("event, line", [
    (ev("special_marker", seat=2), "Special card: the action marker goes to %(seat)s."),
    (out_of_turn(2, "treasure"),
     "Special card: %(seat)s's card is revealed out of turn: a Treasure!"),
    (out_of_turn(2, "special", "lost_treasure"),
     "Special card: %(seat)s's card is revealed out of turn: the Special card Lost "
     "Treasure."),
    (ev("special_role", seat=2, to=0), "Special card: %(to)s sees %(seat)s's role."),
    (ev("special_count", kind="treasure", by=-1),
     "Special card: one Treasure fewer in the game."),
    (ev("special_count", kind="empty", by=1),
     "Special card: one Empty box more in the game."),
])
def test_each_move_has_its_history_line(event, line):
    assert describe(event)[0] == line
