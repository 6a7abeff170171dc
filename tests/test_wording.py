"""Messages in the reader's words, through the real routes: a refusal names the player,
not a seat number; Crazy Time's deal and who restarts, Skull King's one card, Kraken's
checklist and a game's number count in the reader's grammar, in English and Korean."""

import re

import pytest

from bench.builders import make_night
from tests.pages import text_without_bdi
from tests.refusing import status_of

# --- players named, not numbered ----------------------------------------------------------


def test_a_refusal_names_the_player_not_a_seat_number(night):
    game = night.start("crazytime", **{f"seat{i}": "1" for i in range(5)})
    pos = night.pos(game)
    night.host.post(f"{game}/crazytime/rabbit", data={"seat": 0, "pos": pos})
    for turn in range(12):  # match 1: 민수 and 지혜 take every penalty; the others win
        seat = 0 if turn % 2 else 2
        night.host.post(f"{game}/crazytime/penalty", data={"seat": seat, "pos": night.pos(game)})
    night.host.post(f"{game}/crazytime/law", data={
        "name": "Moon", "when": "12", "what": "howl", "pos": night.pos(game)})
    learned = night.host.post(f"{game}/crazytime/learn", data={
        "law": 1, "seat": 0, "pos": night.pos(game)}, headers={"HX-Request": "true"})
    assert status_of(learned) == 422
    html = text_without_bdi(learned)
    assert "민수 already knows the law Moon." in html
    assert "Seat 0" not in html and "Seat 1" not in html


# --- Crazy Time: the deal once the rabbit is known, who restarts after a penalty ------------


def ct(night, action, game, **form):
    return night.host.post(f"{game}/crazytime/{action}", data={**form, "pos": night.pos(game)},
                           headers={"HX-Request": "true"})


def test_the_deal_names_the_extra_cards_only_once_the_rabbit_is_known(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di", "Ed"])
    game = night.start("crazytime", **{f"seat{i}": "1" for i in range(5)})
    phone = night.phone(3)
    html = text_without_bdi(night.host.get(game))
    assert "one more for" not in html and "once the rabbit is chosen" in html
    assert "Your time cards" not in text_without_bdi(phone.get("/me"))
    # 63 cards, 5 players: 12 each; the 3 extra cards go to the rabbit (Di) and on, clockwise
    ct(night, "rabbit", game, seat=3)
    html = text_without_bdi(night.host.get(game))
    assert "Deal the 63 time cards: 12 each; one more for Di, Ed, Ann." in html
    assert re.search(r"Your time cards</dt><dd>(?:<span[^>]*>)?13",
                     text_without_bdi(phone.get("/me")))
    assert re.search(r"Your time cards</dt><dd>(?:<span[^>]*>)?12",
                     text_without_bdi(night.phone(1).get("/me")))


def test_seven_players_share_the_deal_evenly_before_any_rabbit(app):
    night = make_night(app, [f"P{i}" for i in range(7)])
    game = night.start("crazytime", **{f"seat{i}": "1" for i in range(7)})
    assert "Deal the 63 time cards: 9 each." in text_without_bdi(night.host.get(game))


def test_after_a_penalty_the_host_screen_says_who_restarts_at_one_oclock(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    game = night.start("crazytime", **{f"seat{i}": "1" for i in range(4)})
    assert "starts again from 1 o'clock" not in text_without_bdi(night.host.get(game))
    ct(night, "rabbit", game, seat=0)
    ct(night, "penalty", game, seat=2)
    html = text_without_bdi(night.host.get(game))
    assert "After Cy's penalty" in html and "Cy starts again from 1 o'clock" in html
    ct(night, "penalty", game, seat=1)
    assert "Bo starts again from 1 o'clock" in text_without_bdi(night.host.get(game))
    night.host.post(f"{game}/undo", data={"pos": night.pos(game)})
    assert "Cy starts again from 1 o'clock" in text_without_bdi(night.host.get(game))


def test_the_restart_line_is_korean_in_korean(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    game = night.start("crazytime", **{f"seat{i}": "1" for i in range(4)})
    ct(night, "rabbit", game, seat=0)
    ct(night, "penalty", game, seat=2)
    html = text_without_bdi(night.host.get(game, headers={"Accept-Language": "ko"}))
    assert "Cy 님이 “1시”부터 다시 시작합니다." in html


def test_one_match_winner_reads_in_the_singular_several_in_the_plural(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di", "Ed"])
    game = night.start("crazytime", **{f"seat{i}": "1" for i in range(5)})
    ct(night, "rabbit", game, seat=0)
    for seat in [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]:  # Ed alone has none
        ct(night, "penalty", game, seat=seat)
    assert "Ed wins the match and takes the 1h token. Winner: leave the room now!" in \
        text_without_bdi(night.host.get(game))
    ct(night, "law", game, name="Moon", when="12", what="howl")
    ct(night, "next", game)
    for seat in [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]:  # Di and Ed have none
        ct(night, "penalty", game, seat=seat)
    assert "Di, Ed win the match and take the 2h token. Winners: leave the room now!" in \
        text_without_bdi(night.host.get(game))


# --- Skull King: one card, and the leader badge only while playing -------------------------


def test_one_card_dealt_is_singular_and_the_leader_badge_ends_with_the_game(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    game = night.start("skullking", **{f"seat{i}": "1" for i in range(3)}, way="custom",
                       rounds="1,1")
    for seat, bid in enumerate([1, 0, 0]):
        night.host.post(f"{game}/skullking/bid", data={"round": 1, "seat": seat, "bid": bid,
                                                       "pos": night.pos(game)})
    night.host.post(f"{game}/skullking/reveal", data={"round": 1, "pos": night.pos(game)})
    html = text_without_bdi(night.host.get(game))
    assert "Bids total 1 for 1 card dealt" in html and "1 cards" not in html
    night.host.post(f"{game}/skullking/result", data={
        "round": 1, "pos": night.pos(game), "won-0": 1, "won-1": 0, "won-2": 0})
    html = text_without_bdi(night.host.get(game))
    assert "★ leader" in html  # Ann leads after round 1
    for seat, bid in enumerate([1, 0, 0]):
        night.host.post(f"{game}/skullking/bid", data={"round": 2, "seat": seat, "bid": bid,
                                                       "pos": night.pos(game)})
    night.host.post(f"{game}/skullking/reveal", data={"round": 2, "pos": night.pos(game)})
    night.host.post(f"{game}/skullking/result", data={
        "round": 2, "pos": night.pos(game), "won-0": 1, "won-1": 0, "won-2": 0})
    html = text_without_bdi(night.host.get(game))
    assert "Game over" in html and "Winner: Ann" in html
    assert "★ leader" not in html and "★ won" in html
    korean = text_without_bdi(night.host.get(game, headers={"Accept-Language": "ko"}))
    assert "선두" not in korean


# --- No Touch Kraken: nothing said about "0" cards set aside ---------------------------------


@pytest.mark.parametrize("players, unused", [(6, None), (5, 1), (3, 2)])
def test_the_checklist_names_role_cards_set_aside_only_when_there_are_some(app, players,
                                                                             unused):
    night = make_night(app, [f"P{i}" for i in range(players)])
    game = night.start("kraken", **{f"seat{i}": "1" for i in range(players)})
    html = text_without_bdi(night.host.get(game))
    if unused is None:
        assert "set aside unseen" not in html.split("kraken-checklist")[1].split("</li>")[0]
        korean = text_without_bdi(night.host.get(game, headers={"Accept-Language": "ko"}))
        assert "0장은" not in korean
    else:
        assert f"{unused} set aside unseen" in html


def test_a_curse_pile_of_three_adds_nothing_more(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    game = night.start("kraken", **{f"seat{i}": "1" for i in range(3)}, curse="1")
    html = text_without_bdi(night.host.get(game))
    assert "A treasure pile of 3 cards instead of 3 Treasures" in html
    assert "add 0 of them" not in html


# --- one form for a game's number -------------------------------------------------------


def test_a_games_number_reads_the_same_everywhere_in_korean(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    game = night.start("kraken", **{f"seat{i}": "1" for i in range(4)})
    table = text_without_bdi(night.host.get(night.url, headers={"Accept-Language": "ko"}))
    page = text_without_bdi(night.host.get(game, headers={"Accept-Language": "ko"}))
    assert "1번 게임: 노 터치 크라켄" in table and "1번 게임" in page
    for html in (table, page):
        assert "#1" not in re.sub(r"<[^>]*>", "", html)
        assert "번째 게임" not in html
