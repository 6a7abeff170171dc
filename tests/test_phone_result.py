"""Phones at a glance, without a browser: every finished game ends on each phone with that
player's result and the winners (one template for every game, from
``stats.game_result``), a running game shows none, phones link the current game's rules,
and the rules page leads a phone back to its page."""

import re

import pytest

from companion.app import create_app
from tests.conftest import make_night, store_game
from tests.test_crazytime_rules import full_game
from tests.test_crazytime_rules import setup as crazytime_setup
from tests.test_stats import kraken_all_treasure, kraken_kraken_first, kraken_setup

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
