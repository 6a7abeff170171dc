"""Passing the tablet: "Done" is in reach (at the top and at the bottom) and goes back to the
game while one runs, else to the table; the player's "seen" is noted when they reveal their
secret on the tablet, as a phone's is."""

import re

from companion import store
from tests.kraken_host import FOUR, play


def text(response):
    return response.get_data(as_text=True)


def done_links(html):
    """(href, label) of every "Done" on the pass page."""
    return re.findall(r'<a role="button" class="contrast" href="([^"]+)" data-replace>'
                      r'(Done[^<]*)</a>', html)


def test_done_is_at_the_top_and_at_the_bottom(night):
    html = text(night.host.post(f"{night.url}/pass/1"))
    links = done_links(html)
    assert [label for _, label in links] == ["Done", "Done: give the tablet back to the host"]
    top, bottom = (html.index(f">{label}<") for _, label in links)
    assert top < html.index("data-pass-cover") < html.index("data-pass-seat") < bottom


def test_done_goes_back_to_the_table_without_a_game(night):
    links = done_links(text(night.host.post(f"{night.url}/pass/1")))
    assert {href for href, _ in links} == {night.url}


def test_done_goes_back_to_the_running_game(night):
    game = night.start("kraken", **FOUR)
    links = done_links(text(night.host.post(f"{night.url}/pass/1")))
    assert {href for href, _ in links} == {game}


def test_done_goes_back_to_the_table_once_the_game_is_over(night):
    game = night.start("kraken", **FOUR)
    play(night, game, ["kraken"])
    links = done_links(text(night.host.post(f"{night.url}/pass/1")))
    assert {href for href, _ in links} == {night.url}


def test_the_passed_player_is_noted_seen_once_after_the_pass(night):
    night.start("kraken", **FOUR)
    html = text(night.host.post(f"{night.url}/pass/2"))
    assert f'data-seen-url="{night.url}/pass/2/seen"' in html
    assert night.host.post(f"{night.url}/pass/2/seen").status_code == 204
    assert night.host.post(f"{night.url}/pass/2/seen").status_code == 204  # held twice
    with night.app.test_request_context():
        game = store.current_game(store.night_by_key(night.key)["id"])
        assert store.noted(game.id, "seen") == {2}
        assert [a["kind"] for a in store.activity(game.id)] == ["pass", "seen"]


def test_no_seen_before_a_game(night):
    assert night.host.post(f"{night.url}/pass/1/seen").status_code == 404
