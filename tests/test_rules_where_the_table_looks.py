"""The rules the boxes give at a moment of play, on the screen the table looks at then:
No Touch Kraken's deal after a Special card changed how many cards are face down
(docs/rules.md#kraken-decisions), Crazy Time's law cards under the board's corner and
each match's first call (docs/rules.md#crazy-time-matches), Skull King's lead and its
standings before a round is scored (docs/rules.md#skull-king-tricks,
docs/rules.md#standings), the Curse in the treasures still to find and the Explorers'
goal (docs/rules.md#kraken-end, docs/rules.md#kraken-curse)."""

import random
import re

import pytest

from bench.builders import ev, kraken_setup, make_night, store_game
from companion import store
from companion.core.errors import RuleError
from companion.crazytime import rules as ct
from companion.kraken import rules as kr
from companion.skullking import rules as sk
from tests.pages import page_text, text_without_bdi

FOUR = ["민준", "Mina", "서연", "Alex"]


def words(response):
    """A page's words as they read: the tags inside a line joined ("Mina, 서연"), the
    others a space, and spaces as a browser shows them."""
    inline = re.sub(r"</?(?:span|small|strong|em|b|i|a|time|output|label)\b[^>]*>", "",
                    text_without_bdi(response))
    return re.sub(r"\s+", " ", page_text(inline))


def device(night):
    return night.host.get_cookie("device").value


def show(night, number):
    with night.app.test_request_context():
        store.set_current_game(store.night_by_key(night.key)["id"], number)


# --- No Touch Kraken: the cards left are dealt evenly ---------------------------------


def kraken_game(n=4, **options):
    return kr.start(list(range(n)), {"specials": True, **options}, rng=random.Random(3))


def count(kind, by):
    """A Special card put one ``kind`` into the game (1) or took one out (-1)."""
    return {"type": "special_count", "data": {"kind": kind, "by": by}, "seat": None}


def special(seat, name="captains_obsession"):
    return ev("reveal", seat=seat, card="special", special=name)


#: 4 players: 민준 (seat 0) takes the marker and reveals a Special in front of Mina; one
#: card of 서연's comes up out of turn; three more actions end round 1 with the marker
#: back at 민준. 20 cards, 5 face up: 15 to deal for round 2, not 4 × 4.
ROUND_ONE = [ev("marker", seat=0), special(1), ev("special_reveal", seat=2, card="empty"),
             ev("reveal", seat=2, card="empty"), ev("reveal", seat=3, card="empty"),
             ev("reveal", seat=0, card="empty")]


@pytest.mark.parametrize("players, first, cards, split", [
    ([0, 1, 2, 3], 0, 16, {0: 4, 1: 4, 2: 4, 3: 4}),  # the box's 4 each
    ([0, 1, 2, 3], 0, 15, {0: 4, 1: 4, 2: 4, 3: 3}),  # the last dealt to takes one fewer
    ([0, 1, 2, 3], 2, 15, {2: 4, 3: 4, 0: 4, 1: 3}),  # the marker holder is dealt first
    ([0, 1, 2, 3], 3, 17, {3: 5, 0: 4, 1: 4, 2: 4}),  # a card put in: one takes one more
    ([0, 2, 5], 5, 7, {5: 3, 0: 2, 2: 2}),
    ([0, 1, 2, 3, 4, 5, 6, 7], 6, 13, {6: 2, 7: 2, 0: 2, 1: 2, 2: 2, 3: 1, 4: 1, 5: 1}),
])
def test_the_cards_left_are_dealt_one_at_a_time_from_the_marker_holder(players, first, cards,
                                                                       split):
    dealt = kr.deal_split(players, first, cards)
    assert dealt == split and list(dealt) == list(split)  # the order they are dealt to
    assert sum(dealt.values()) == cards
    assert max(dealt.values()) - min(dealt.values()) <= 1


def test_a_card_revealed_out_of_turn_leaves_fifteen_to_deal_four_four_four_three():
    state = kr.replay(kraken_game(), ROUND_ONE)
    assert state["round_over_deal"] == 4  # what the box deals in round 2
    assert state["deal"] == {"cards": 15, "shares": [{"cards": 4, "seats": [0, 1, 2]},
                                                     {"cards": 3, "seats": [3]}]}
    assert state["cards_in_front"] == {"0": 4, "1": 4, "2": 4, "3": 3}
    # the next reveal starts round 2 from the deal: Alex's 3 cards, one turned up
    state = kr.replay(kraken_game(), [*ROUND_ONE, ev("reveal", seat=3, card="empty")])
    assert state["deal"] is None and state["cards_in_front"]["3"] == 2


def test_without_a_special_the_deal_is_the_boxs_so_many_each():
    events = [ev("marker", seat=0)] + [ev("reveal", seat=s, card="empty") for s in (1, 2, 3, 0)]
    state = kr.replay(kraken_game(), events)
    assert state["deal"] == {"cards": 16, "shares": [{"cards": 4, "seats": [0, 1, 2, 3]}]}
    assert kr.next_step(kraken_game(), state) == (
        "Round %(round)s over: gather, shuffle and deal %(cards)s each · %(holder)s has "
        "the marker", {"round": 1, "cards": 4, "holder": [0]})


def test_a_special_move_after_the_round_ended_changes_the_deal_about_to_be_made():
    # one Treasure more: 16 again, 4 each
    state = kr.replay(kraken_game(), [*ROUND_ONE,
                                      count("treasure", 1)])
    assert state["deal"]["shares"] == [{"cards": 4, "seats": [0, 1, 2, 3]}]
    # the marker passed to 서연: she is dealt to first, and Mina, the last, takes 3
    state = kr.replay(kraken_game(), [*ROUND_ONE, ev("special_marker", seat=2)])
    assert state["deal"]["shares"] == [{"cards": 4, "seats": [2, 3, 0]},
                                       {"cards": 3, "seats": [1]}]
    assert state["cards_in_front"] == {"0": 4, "1": 3, "2": 4, "3": 4}
    # one more out of turn: 14 left
    state = kr.replay(kraken_game(), [*ROUND_ONE, ev("special_reveal", seat=1, card="empty")])
    assert state["deal"] == {"cards": 14, "shares": [{"cards": 4, "seats": [0, 1]},
                                                     {"cards": 3, "seats": [2, 3]}]}


def test_the_deal_counts_every_card_still_face_down():
    """Whatever the Special cards did, the deal shares out the cards the table holds:
    the deck, plus those put in, less those taken out and those revealed."""
    rng = random.Random(7)
    for _ in range(40):
        setup = kraken_game(5)
        events, face_down, added = [ev("marker", seat=0)], 25, 0
        state = kr.replay(setup, events)
        while not state["finished"] and not state["deal"]:
            holder = state["marker"]
            move = rng.random()
            if state["special_revealed"] and move < 0.2:
                events.append(count("empty", 1))
                added += 1
            else:
                seat = next(s for s in rng.sample(range(5), 5)
                            if s != holder and state["cards_in_front"][str(s)])
                kind = "special_reveal" if state["special_revealed"] and move < 0.4 \
                    else "reveal"
                card = "special" if not state["special_revealed"] else "empty"
                name = {"special": "lost_treasure"} if card == "special" else {}
                events.append(ev(kind, seat=seat, card=card, **name))
            state = kr.replay(setup, events)
        if state["deal"]:
            revealed = len(state["reveals"])
            assert state["deal"]["cards"] == face_down + added - revealed
            assert sum(state["cards_in_front"].values()) == face_down + added - revealed


def kraken_night(app, events, **options):
    night = make_night(app, FOUR)
    setup = kraken_setup(["explorer", "skeleton", "explorer", "explorer"])
    setup["options"].update({"specials": True, **options})
    setup["deck"] = kr.setup(4, specials=True, **options)
    number = store_game(app, device(night), night.key,
                        {"kind": "kraken", "setup": setup, "events": events}).number
    show(night, number)
    return night, f"{night.url}/g/{number}"


def test_the_host_and_the_room_read_the_real_deal(app):
    night, url = kraken_night(app, ROUND_ONE)
    host, screen = words(night.host.get(url)), words(night.host.get(f"{night.url}/screen"))
    for page in (host, screen):
        assert ("Round 1 over: gather and shuffle the 15 face-down cards, then deal 4 to "
                "민준, Mina and 서연; 3 to Alex · 민준 has the marker") in page
        assert ("Round 1 is over. Gather the 15 face-down cards, shuffle them and deal 4 to "
                "민준, Mina and 서연; 3 to Alex.") in page
        assert "deal 4 each" not in page and "deal 4 cards to each player" not in page
    assert "Alex (3 cards)" in host  # the tile of the next reveal
    night.host.set_cookie("lang", "ko")
    korean = words(night.host.get(url))
    assert ("뒷면 카드 15장을 모아 섞은 뒤 나눠 주세요. "
            "민준 님, Mina 님, 서연 님은 4장, Alex 님은 3장") in korean
    assert "Alex(3장)" in korean


# --- No Touch Kraken: the Curse counts among the treasure to find; the Explorers' goal -----


def test_with_the_curse_the_glance_counts_treasures_and_curses_to_find(app):
    night, url = kraken_night(app, [ev("marker", seat=0), ev("reveal", seat=1, card="treasure")],
                              curse=True)
    assert re.search(r"Treasures and Curses still to find 3\b", words(night.host.get(url)))
    night.host.set_cookie("lang", "ko")
    assert "아직 찾지 못한 보물 상자와 저주 3" in words(night.host.get(url))
    plain, url = kraken_night(app, [ev("marker", seat=0)])
    page = words(plain.host.get(url))
    assert "Treasures still to find 4" in page and "Curses" not in page


@pytest.mark.parametrize("curse", [False, True])
def test_the_explorers_goal_names_the_four_rounds_as_the_skeletons_does(app, curse):
    night, _url = kraken_night(app, [], curse=curse)
    explorer = words(night.phone(0).get("/me"))  # 민준 is an Explorer
    skeleton = words(night.phone(1).get("/me"))
    assert "before four rounds run out" in explorer
    assert "let four rounds run out" in skeleton
    assert ("Treasures and Curses" in explorer) == curse


# --- Crazy Time: the law's cards under the corner of its hour; 1 o'clock first ---------


def test_the_law_of_each_match_goes_under_the_corner_of_its_hour():
    assert [ct.law_corner(m) for m in (1, 2, 3)] == [1, 2, 3]
    assert ct.law_corner(0) is None  # the harder start's law: the box names no corner
    for wrong in (4, -1, "1", True):
        with pytest.raises(RuleError):
            ct.law_corner(wrong)


def crazy_time_events(matches):
    """Five players, blue side: Ann (4) holds the rabbit; each match won by seat 4 alone
    (seats 0-3 take its tokens), its law made and the winner back, ``matches`` of them,
    the last one's law not yet made."""
    events = [ev("rabbit", seat=4)]
    for match in range(1, matches + 1):
        if match > 1:
            events += [ev("law", name=f"Moon {match - 1}", when="6", what="1"),
                       ev("next_match")]
        events += [ev("penalty", seat=i % 4) for i in range(ct.penalty_tokens(match, "blue"))]
    return events


@pytest.mark.parametrize("matches", [1, 2, 3])
def test_the_state_names_the_corner_while_the_law_is_made(matches):
    setup = ct.start([0, 1, 2, 3, 4], {"side": "blue"})
    state = ct.replay(setup, crazy_time_events(matches))
    assert state["phase"] == "law" and state["law_corner"] == matches
    state = ct.replay(setup, [*crazy_time_events(matches),
                              ev("law", name="Sun", when="6", what="1"), ev("next_match")])
    assert state["phase"] == "play" and state["law_corner"] is None


def crazy_time_night(app, events):
    night = make_night(app, ["민준", "Mina", "서연", "Alex", "지우"])
    number = store_game(app, device(night), night.key, {
        "kind": "crazytime", "setup": ct.start([0, 1, 2, 3, 4], {"side": "blue"}),
        "events": events}).number
    show(night, number)
    return night, f"{night.url}/g/{number}"


def test_the_tablet_and_the_phones_at_the_table_say_where_the_law_cards_go(app):
    night, url = crazy_time_night(app, crazy_time_events(2))
    corner = "go face down under the board's corner marked “2h”"
    assert corner in words(night.host.get(url))
    assert corner in words(night.phone(0).get("/me"))  # at the table, making the law
    assert corner not in words(night.phone(4).get("/me"))  # 지우 won: out of the room
    night.host.set_cookie("lang", "ko")
    assert "“2시간”이라고 적힌 모서리 아래에 넣어 두세요" in words(night.host.get(url))
    night, url = crazy_time_night(app, [*crazy_time_events(2),
                                        ev("law", name="Sun", when="6", what="1")])
    assert corner in words(night.host.get(url))  # until the match starts
    night.host.post(f"{url}/crazytime/next", data={"pos": night.pos(url)})
    assert "corner marked" not in words(night.host.get(url))


def test_each_matchs_first_screen_says_it_starts_at_one_and_the_hour_comes_first(app):
    first = "Each match starts at “1 o'clock”: the rabbit calls the hour first, then flips"
    night, url = crazy_time_night(app, [ev("rabbit", seat=4)])
    assert first in words(night.host.get(url)) and first in words(night.phone(2).get("/me"))
    night.host.set_cookie("lang", "ko")
    assert "“1시”를 외치며 시작합니다. 시각을 먼저 외친 다음" in words(night.host.get(url))
    night, url = crazy_time_night(app, [ev("rabbit", seat=4), ev("penalty", seat=1)])
    assert first not in words(night.host.get(url))  # the match is under way
    night, url = crazy_time_night(app, [*crazy_time_events(1),
                                        ev("law", name="Sun", when="6", what="1"),
                                        ev("next_match")])
    assert first in words(night.host.get(url)) and first in words(night.phone(2).get("/me"))


# --- Skull King: the trick's winner leads the next; no standings before a score --------


def skull_king_night(app, events):
    night = make_night(app, FOUR)
    number = store_game(app, device(night), night.key, {
        "kind": "skullking", "events": events,
        "setup": sk.start([0, 1, 2, 3], {"way": "custom", "rounds": [1, 2]})}).number
    show(night, number)
    return night, f"{night.url}/g/{number}"


BIDS = [ev("bid", seat=s, round=1, bid=int(s == 0)) for s in range(4)]


def test_after_yo_ho_ho_the_table_is_told_who_leads_and_that_the_winner_leads_next(app):
    night, url = skull_king_night(app, [*BIDS, ev("reveal_bids", round=1)])
    line = "Round 1: Mina leads the first trick; the winner of each trick leads the next"
    assert line in words(night.host.get(url))
    assert line in words(night.host.get(f"{night.url}/screen"))
    assert "the winner of each trick leads the next" in words(night.host.get("/rules/skullking"))


def test_before_a_round_is_scored_nobody_is_ranked(app):
    night, url = skull_king_night(app, [*BIDS, ev("reveal_bids", round=1)])
    for page in (night.host.get(url), night.phone(2).get("/me"),
                 night.host.get(f"{night.url}/screen")):
        html = page.get_data(as_text=True)
        assert "The standings start once the first round is scored." in words(page)
        assert 'class="sk-ranks"' not in html and "data-rank=" not in html
        assert ">Rank<" not in html and "data-my-rank" not in html
    night, url = skull_king_night(app, [*BIDS, ev("reveal_bids", round=1), ev(
        "result", round=1, results={"0": {"won": 1}, "1": {"won": 0}, "2": {"won": 0},
                                    "3": {"won": 0}})])
    html = night.host.get(url).get_data(as_text=True)
    assert 'data-rank="1"' in html and 'data-rank="2"' in html  # 민준 20, the rest 10
    assert "The standings start" not in html
