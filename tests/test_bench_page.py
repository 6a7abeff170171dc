"""The bench reads the app's real pages: it finds what a host taps by the templates'
hooks (bench/page.py), and stops with the missing hook's name when one is gone."""

import pytest

from bench.page import MissingElement, live_region, parse


def test_the_bench_finds_the_host_s_kraken_forms_on_the_real_page(night):
    game_url = night.start("kraken", **{f"seat{i}": "on" for i in range(5)})

    page = parse(night.host.get(game_url).data.decode(), "the game page")

    marker = page.form("kraken-marker")
    assert marker.action == f"{game_url}/kraken/marker"
    assert marker.value("pos") == str(night.pos(game_url))
    assert marker.choices("seat") == [str(i) for i in range(5)]
    path, version = page.live_url()
    assert path == f"{game_url}/live"
    assert version >= 1
    assert any(link.startswith("/static/") for link in page.links)


def test_the_live_region_is_read_from_a_fragment_as_from_the_page(night):
    game_url = night.start("kraken", **{f"seat{i}": "on" for i in range(5)})
    fragment = night.host.get(game_url, headers={"HX-Request": "true"}).data.decode()

    assert live_region(fragment, "the fragment") == parse(fragment, "the fragment").live_url()


def test_disabled_buttons_are_no_choice():
    page = parse('<form data-action="pick" action="/p"><button name="seat" value="0">A'
                 '</button><button name="seat" value="1" disabled>B</button></form>', "x")

    assert page.form("pick").choices("seat") == ["0"]


def test_a_missing_hook_is_named():
    page = parse("<p>nothing to tap</p>", "the test page")

    with pytest.raises(MissingElement, match='no <form data-action="kraken-marker"> on '
                                             "the test page"):
        page.form("kraken-marker")
    with pytest.raises(MissingElement, match='no live region'):
        live_region("<p>no live region</p>", "the test page")
