"""The host's table page knows when no phone reaches the laptop, and "Phones can't open
it?" offers the laptop's other addresses and the steps for its OS
(templates/table/_reach.html, companion/laptop/doctor.py)."""

import re

import pytest

from bench.builders import make_night
from companion import store
from companion.laptop import doctor
from companion.laptop.addresses import Interface
from companion.laptop.doctor import Facts, Network
from companion.pictures import qr
from companion.table import nights

OTHERS = ["http://192.168.137.1:8765", "http://10.8.0.2:8765"]


def waiting(html):
    """Whether the page carries the (hidden until a minute passed) notice."""
    return "data-reach-wait=" in html


def version(night):
    with night.app.test_request_context():
        return store.night_by_key(night.key)["version"]


def test_a_new_night_waits_for_a_phone_and_folds_the_steps(night):
    html = night.host.get(night.url).data.decode()
    assert waiting(html)
    notice = re.search(r'<p class="notice reach-alert"[^>]*>', html).group(0)
    assert " hidden" in notice  # static/js/panels.js shows it after a minute
    assert '<details id="reach" class="reach-help">' in html
    assert "Phones can&#39;t open it?" in html or "Phones can't open it?" in html
    assert 'href="#hotspot"' in html
    assert "reach-addresses" not in html  # no other address configured


def test_a_phone_that_opens_its_seat_code_ends_the_wait_by_push(night):
    before = version(night)
    phone = night.app.test_client()
    assert phone.get(f"/s/{night.tokens[0]}").status_code == 200  # the question only
    assert version(night) == before + 1  # the host's page refreshes
    assert not waiting(night.host.get(night.url).data.decode())
    assert phone.get(f"/s/{night.tokens[1]}").status_code == 200
    assert version(night) == before + 1  # once a night: nothing more is written


def test_the_host_opening_a_seat_code_is_not_a_phone_arriving(night):
    before = version(night)
    assert night.host.get(f"/s/{night.tokens[0]}").status_code == 409
    assert version(night) == before
    assert waiting(night.host.get(night.url).data.decode())


def test_a_claimed_seat_or_a_screen_is_a_device_that_arrived(app):
    claimed = make_night(app)
    with app.test_request_context():  # a night from before the notice: claimed, unmarked
        store.claim_seat(store.seat_by_token(claimed.tokens[2]), "an-old-phone")
    assert not waiting(claimed.host.get(claimed.url).data.decode())
    screened = make_night(app)
    html = screened.host.post(f"{screened.url}/screens").data.decode()
    token = re.search(r"/t/([A-Za-z0-9_-]+)", html).group(1)
    assert app.test_client().get(f"/t/{token}").status_code == 200
    assert not waiting(screened.host.get(screened.url).data.decode())


def test_a_night_with_every_seat_on_the_tablet_waits_for_no_phone(night):
    for position in range(len(night.tokens)):
        night.host.post(f"{night.url}/seats/{position}/tablet", data={"on": "1"})
    assert not waiting(night.host.get(night.url).data.decode())


def test_the_other_addresses_have_their_qr_codes_for_the_host_only(night):
    night.app.config["OTHER_URLS"] = OTHERS
    html = night.host.get(night.url).data.decode()
    for index, url in enumerate(OTHERS):
        assert f"<code>{url}</code>" in html
        answer = night.host.get(f"{night.url}/reach/{index}.svg")
        assert answer.status_code == 200
        assert answer.mimetype == "image/svg+xml"
        assert answer.data.decode() == qr.svg(url + "/")
    assert "--public-url http://192.168.137.1:8765" in html
    assert night.host.get(f"{night.url}/reach/2.svg").status_code == 404
    assert night.app.test_client().get(f"{night.url}/reach/0.svg").status_code == 404


def test_a_public_windows_network_is_named_on_the_page_in_both_languages(night, monkeypatch):
    monkeypatch.setattr(nights.doctor, "page_facts", lambda port: Facts(
        system="Windows", port=port, networks=(Network("Wi-Fi", "CafeNet", "Public"),),
        interfaces=(Interface("OpenVPN TAP-Windows6", "10.8.0.2", 8),)))
    english = night.host.get(night.url).data.decode()
    assert "Windows treats the network “CafeNet” as Public" in english
    assert "Allow Python through the firewall" in english
    assert "Turn off the VPN on the laptop (OpenVPN TAP-Windows6)" in english
    night.host.set_cookie("lang", "ko")
    korean = night.host.get(night.url).data.decode()
    assert "“CafeNet” 네트워크를 공용 네트워크로" in korean
    assert "휴대폰에서 열리지 않나요?" in korean
    assert "아직 이 노트북에 접속한 휴대폰이 없습니다." in korean


@pytest.mark.parametrize("system, says", [
    ("Linux", "sudo ufw allow 8765/tcp"),
    ("Darwin", "System Settings → Network → Firewall"),
    ("Windows", "Make this network Private"),
    ("FreeBSD", "Allow incoming connections to port 8765"),
])
def test_the_steps_begin_with_the_laptops_own_firewall(system, says):
    steps = doctor.advice(Facts(system=system, port=8765))
    assert says in steps[0].english()
    assert [s.key for s in steps][-5:] == ["mobile-data", "isolation", "vpn", "wired", "lid"]


def test_a_name_in_the_page_is_escaped(night, monkeypatch):
    monkeypatch.setattr(nights.doctor, "page_facts", lambda port: Facts(
        system="Windows", port=port, networks=(Network("Wi-Fi", "<b>x</b>", "Public"),)))
    html = night.host.get(night.url).data.decode()
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
