"""QR codes cost the table nothing it would notice: each is drawn once and kept (the
Wi-Fi code once per network, a host or screen code asked for again seconds later is the
same code), and one that must be drawn is drawn beside the loop, in its client
address's turn (companion/web/offload.py), never on the loop every table shares."""

import re

import pytest

from companion.pictures import qr
from companion.store import connection as db
from companion.web import offload
from tests.screens import CODE, show_code
from tests.wifi_form import image_url, set_wifi

HOST_CODE = re.compile(r"/h/([A-Za-z0-9_-]{32,64})")


@pytest.fixture
def drawings(monkeypatch):
    """Every piece of work handed beside the loop, by name, while the test runs."""
    handed: list[str] = []
    real = offload.beside_the_loop

    def beside(work, *args):
        handed.append(getattr(work, "__name__", type(work).__name__))
        return real(work, *args)

    monkeypatch.setattr(offload, "beside_the_loop", beside)
    return handed


def later(monkeypatch, seconds):
    """The clock moved on by ``seconds``."""
    now = db.time.time()
    monkeypatch.setattr(db.time, "time", lambda: now + seconds)


def host_code(night):
    return HOST_CODE.search(night.host.post(f"{night.url}/hosts").data.decode()).group(1)


def test_the_wifi_code_is_drawn_once_per_network_and_beside_the_loop(night, drawings,
                                                                      monkeypatch):
    drawn = []
    real_png = qr.wifi_png

    def wifi_png(data):
        drawn.append(data)
        return real_png(data)

    monkeypatch.setattr(qr, "wifi_png", wifi_png)
    set_wifi(night.host, night, ssid="Home", password="first-pass")
    url = image_url(night.host.get(night.url).data.decode())
    first = night.host.get(url).data
    assert all(night.host.get(url).data == first for _ in range(5))
    assert len(drawn) == 1 and drawings.count("wifi_png") == 1
    set_wifi(night.host, night, ssid="Home", password="second-pass")
    url = image_url(night.host.get(night.url).data.decode())
    assert night.host.get(url).data != first
    assert len(drawn) == 2 and "second-pass" in drawn[1]


def test_a_hidden_or_forgotten_code_is_no_longer_given_from_what_was_kept(night):
    set_wifi(night.host, night)
    url = image_url(night.host.get(night.url).data.decode())
    assert night.host.get(url).status_code == 200
    night.host.post(f"{night.url}/wifi/shown", data={"shown": "0"})
    assert night.host.get(url).status_code == 404
    night.host.post(f"{night.url}/wifi/shown", data={"shown": "1"})
    assert night.host.get(url).status_code == 200
    night.host.post(f"{night.url}/wifi/forget")
    assert night.host.get(url).status_code == 404


def test_a_new_seat_code_is_drawn_beside_the_loop_and_kept(night, drawings):
    night.host.post(f"{night.url}/seats/1/code", headers={"HX-Request": "true"})
    assert night.host.get(f"{night.url}/qr/1.svg").status_code == 200
    assert drawings.count("draw_svg") == 1
    assert night.host.get(f"{night.url}/qr/1.svg").status_code == 200
    assert drawings.count("draw_svg") == 1


def test_a_host_code_asked_for_again_within_seconds_is_the_same_code(night, drawings,
                                                                     monkeypatch):
    first = host_code(night)
    assert [host_code(night) for _ in range(5)] == [first] * 5
    assert drawings.count("draw_svg") == 1
    later(monkeypatch, 31)
    second = host_code(night)
    assert second != first
    assert night.app.test_client().post(f"/h/{first}").status_code == 410  # cancelled
    assert night.app.test_client().post(f"/h/{second}").status_code == 303


def test_a_screen_code_asked_for_again_within_seconds_is_the_same_code(night, drawings,
                                                                       monkeypatch):
    first = show_code(night)
    assert [show_code(night) for _ in range(5)] == [first] * 5
    assert drawings.count("draw_svg") == 1
    later(monkeypatch, 31)
    second = show_code(night)
    assert second != first
    assert night.app.test_client().post(f"/t/{first}").status_code == 410
    assert night.app.test_client().post(f"/t/{second}").status_code == 303


def test_a_second_host_device_gets_its_own_screen_code(app, night):
    tablet = app.test_client()
    assert tablet.post(f"/h/{host_code(night)}").status_code == 303
    mine = show_code(night)
    theirs = CODE.search(tablet.post(f"{night.url}/screens").data.decode()).group(1)
    assert mine != theirs


def test_outside_a_request_a_code_is_drawn_where_it_is_asked(drawings):
    assert qr.svg("http://table.test/outside").startswith("<?xml")
    assert drawings == []
