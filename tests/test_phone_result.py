"""Phones at a glance, without a browser: every finished game ends on each phone with that
player's result and the winners (one template for every game, from
``stats.game_result``), a running game shows none, phones link the current game's rules,
and the rules page leads a phone back to its page."""

import re

import pytest

from bench.builders import (
    NAMES,
    ev,
    kraken_all_treasure,
    kraken_kraken_first,
    kraken_setup,
    make_night,
    store_game,
)
from companion import store
from companion.app import create_app
from companion.skullking import rules as sk
from tests.crazytime_log import after_match_1, full_game, law
from tests.crazytime_log import setup as crazytime_setup

# NAMES in tests/conftest.py: 0 민수, 1 Jo, 2 지혜 🙂, 3 Ann, 4 박서준


def device(night):
    return night.host.get_cookie("device").value


def kraken(roles, events):
    return {"kind": "kraken", "setup": kraken_setup(roles), "events": events}


def result_of(client, lang="en"):
    """(what the phone's result says — won / shared / lost / watching — and its text)."""
    client.set_cookie("lang", lang)
    html = client.get("/me").data.decode()
    found = re.search(
        r'<section class="phone-result[^"]*" data-result="(\w+)"[^>]*>(.*?)</section>', html, re.S)
    if found is None:
        return None, ""
    words = re.sub(r"</?bdi>", "", found.group(2))  # a name's isolation is no word
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", words)).strip()
    return found.group(1), text


def test_a_kraken_win_tells_the_winner_the_losers_and_a_player_who_sat_out(night):
    phones = [night.phone(p) for p in range(5)]
    # four players; Jo is the Skeleton and the Kraken comes up: the Skeletons win
    store_game(night.app, device(night), night.key,
               kraken(["explorer", "skeleton", "explorer", "explorer"], kraken_kraken_first()))
    assert result_of(phones[1]) == ("won", "You won!")
    for seat in (0, 2, 3):
        assert result_of(phones[seat]) == ("lost", "You lost. The winner: Jo")
    assert result_of(phones[4]) == ("watching", "The game is over. The winner: Jo")
    assert result_of(phones[1], "ko") == ("won", "이겼습니다!")
    assert result_of(phones[0], "ko") == ("lost", "졌습니다. 승자: Jo")


def test_a_team_that_wins_together_shares_the_win(night):
    phones = [night.phone(p) for p in range(3)]
    # three players, all the treasure found: 민수 and 지혜 🙂 (the Explorers) win
    store_game(night.app, device(night), night.key,
               kraken(["explorer", "skeleton", "explorer"], kraken_all_treasure()))
    assert result_of(phones[0]) == ("shared", "You won! Shared with: 지혜 🙂")
    assert result_of(phones[2]) == ("shared", "You won! Shared with: 민수")
    assert result_of(phones[1]) == ("lost", "You lost. The winners: 민수, 지혜 🙂")
    assert result_of(phones[1], "ko") == ("lost", "졌습니다. 승자: 민수, 지혜 🙂")


def test_when_nobody_wins_every_phone_says_so(night):
    phones = [night.phone(p) for p in range(3)]
    # three Explorers and the Kraken: the winning team has no player, everybody loses
    store_game(night.app, device(night), night.key,
               kraken(["explorer", "explorer", "explorer"], kraken_kraken_first()))
    for phone in phones:
        assert result_of(phone) == ("lost", "You lost. Nobody won this game.")


def test_crazy_time_ends_with_a_winner_banner_on_every_phone(night):
    phones = [night.phone(p) for p in range(5)]
    game = {"kind": "crazytime", "setup": crazytime_setup(side="blue", starting_law=True),
            "events": full_game()}
    store_game(night.app, device(night), night.key, game)
    assert result_of(phones[0]) == ("won", "You won!")
    for seat in range(1, 5):
        assert result_of(phones[seat]) == ("lost", "You lost. The winner: 민수")


def test_a_running_game_has_no_result_and_its_phones_link_its_rules(night):
    phone = night.phone(0)
    html = phone.get("/me").data.decode()
    assert "data-result" not in html and "/rules/" not in html  # waiting: no game yet
    store_game(night.app, device(night), night.key,
               kraken(["explorer", "skeleton", "explorer", "explorer"], kraken_kraken_first()[:1]))
    html = phone.get("/me").data.decode()
    assert "data-result" not in html
    assert 'href="/rules/kraken"' in html
    assert 'data-game="1"' in html  # the live refresh notices another game by this
    live = phone.get("/me/live?v=-1", headers={"HX-Request": "true"}).data.decode()
    assert 'href="/rules/kraken"' in live and "data-offline=" in live


@pytest.mark.parametrize("kind", ["kraken", "skullking", "crazytime"])
def test_the_rules_lead_a_phone_back_to_its_page_and_nobody_else(night, client, kind):
    phone = night.phone(0)
    mine = phone.get(f"/rules/{kind}").data.decode()
    assert 'href="/me"' in mine and "My page" in mine
    assert "<h1>" in mine.split('href="/me"')[1]  # the way back comes before the rules
    for other in (night.host, client):
        page = other.get(f"/rules/{kind}")
        assert page.status_code == 200 and 'href="/me"' not in page.data.decode()
    assert phone.get("/rules/nothing").status_code == 404


def test_a_game_added_later_gets_the_result_and_the_way_back_too(tmp_path):
    app = create_app({
        "TESTING": True, "DATABASE": str(tmp_path / "four.sqlite"), "SECRET_KEY": "test",
        "WTF_CSRF_ENABLED": False, "PUBLIC_URL": "http://table.test:8765", "LANGUAGE": "en",
        "GAMES": ["companion.kraken.game", "companion.skullking.game", "companion.crazytime.game",
                  "tests.fourthgame.game"],
    })
    night = make_night(app, names=["Ann", "Bo", "Cy"])
    phones = [night.phone(p) for p in range(3)]
    game_url = night.start("secretnumber", seat0="on", seat1="on", seat2="on", top="9")
    night.host.post(f"{game_url}/secretnumber/point", data={"seat": 1, "pos": night.pos(game_url)})
    night.host.post(f"{game_url}/secretnumber/finish", data={"pos": night.pos(game_url)})
    assert result_of(phones[1]) == ("won", "You won!")
    assert result_of(phones[0]) == ("lost", "You lost. The winner: Bo")
    assert 'href="/me"' in phones[0].get("/rules/secretnumber").data.decode()


# --- said big: the takeover (static/js/panels.js opens it, a tap closes it) ------------

def takeover(client):
    """(its classes, its key) of the phone's ending said big, or None."""
    found = re.search(r'<div class="ending takeover ([^"]*)" data-takeover="([^"]+)">',
                      client.get("/me").data.decode())
    return found and (found.group(1), found.group(2))


def test_an_ending_is_said_big_in_the_players_colour_kindly_to_a_loser_and_keyed_by_the_end(night):
    phones = [night.phone(p) for p in range(5)]
    store_game(night.app, device(night), night.key,
               kraken(["explorer", "skeleton", "explorer", "explorer"], kraken_kraken_first()))
    won, key = takeover(phones[1])
    assert won == "pc-sky takeover-won" and key.endswith("/1/1")  # game 1, won by seat 1
    lost, same = takeover(phones[0])
    assert lost == "pc-orange takeover-lost" and same == key  # one key per game end
    html = phones[0].get("/me").data.decode()
    assert "Well played: the next game could be yours." in html and "Tap to close" in html
    assert "Well played" not in phones[1].get("/me").data.decode()
    assert takeover(phones[4]) is None  # sat out: the box only, nothing said big
    assert '<div class="ending">' in phones[4].get("/me").data.decode()


def test_a_kraken_phone_names_the_winners_once(night):
    phones = [night.phone(p) for p in range(5)]
    store_game(night.app, device(night), night.key,
               kraken(["explorer", "skeleton", "explorer", "explorer", "skeleton"],
                      kraken_kraken_first()))
    html = phones[0].get("/me").data.decode()
    said = re.sub(r"<[^>]+>", "", html)
    assert said.count("The winners: Jo, 박서준") == 1 and "Winners:" not in said
    assert 'class="winners"' not in html
    assert "The Skeletons win!" in html
    host = night.host.get(f"{night.url}/g/1").data.decode()
    assert 'class="winners"' in host  # the host's page has no result box: it names them


def test_crazy_times_winners_are_told_big_to_leave_until_the_law_is_made(night):
    phones = [night.phone(p) for p in range(5)]
    game = {"kind": "crazytime", "setup": crazytime_setup(side="blue"),
            "events": after_match_1()}
    number = store_game(night.app, device(night), night.key, game).number
    for seat in (3, 4):  # match 1's winners
        html = phones[seat].get("/me").data.decode()
        assert re.search(r'class="ct-leave-box takeover takeover-leave pc-\w+" '
                         rf'data-takeover="[^"]+/{number}/leave/1"', html)
        assert 'class="takeover-only ct-door"' in html
    for seat in (0, 1, 2):
        assert "takeover" not in phones[seat].get("/me").data.decode()
    with night.app.test_request_context():
        current = store.game(store.night_by_key(night.key)["id"], number)
        store.record(current, "law", law("Moon")["data"], pos=current.pos, device=device(night))
    html = phones[3].get("/me").data.decode()
    # back at the table: called in by the new law's name, never sent out again
    assert "leave the room now!" not in html and "takeover" not in html
    assert "Come back in: the new law is called Moon." in re.sub(r"<[^>]+>", "", html)


def test_skull_kings_own_bid_is_shown_big_only_after_the_reveal_and_only_its_own(night):
    phones = [night.phone(p) for p in range(4)]
    setup = sk.start(list(range(4)), {"way": "custom", "rounds": [3]})
    bids = [ev("bid", by=s, seat=s, round=1, bid=b) for s, b in enumerate([2, 0, 3, 1])]
    number = store_game(night.app, device(night), night.key,
                        {"kind": "skullking", "setup": setup, "events": bids}).number
    assert "sk-big-bid" not in phones[2].get("/me").data.decode()  # before the reveal: none
    with night.app.test_request_context():
        current = store.game(store.night_by_key(night.key)["id"], number)
        store.record(current, "reveal_bids", {"round": 1}, pos=current.pos, device=device(night))
    for seat, bid, colour in ((2, 3, "green"), (3, 1, "yellow")):
        html = phones[seat].get("/me").data.decode()
        big = re.search(r'<div id="sk-big-bid" class="takeover takeover-bid pc-(\w+)" hidden>(.*?)'
                        r'<button', html, re.S)
        assert big.group(1) == colour
        assert re.findall(r">\s*(\d)\s*<", big.group(2)) == [str(bid)]  # one number: its own
        assert NAMES[seat] in big.group(2) and all(
            NAMES[other] not in big.group(2) for other in range(4) if other != seat)
        assert 'data-takeover-open="sk-big-bid">Show my bid big</button>' in html
        # the player's own row of the revealed bids stands out
        assert f'<li data-seat="{seat}" class="me pc-{colour}" aria-current="true">' in html
