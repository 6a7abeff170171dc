"""A tally that stays light: each finished game's BG Stats QR code is an image of its own,
drawn once and kept by the browser, and a phone fetches one only when it opens it."""

import re

import pytest

from bench.builders import (
    crazytime_game,
    kraken_all_treasure,
    kraken_game,
    kraken_kraken_first,
    make_night,
    skullking_hand,
    store_game,
)
from companion.core import bgstats
from companion.pictures import qr

ROLES = ["explorer", "skeleton", "explorer", "explorer"]
LIMIT = 150 * 1024


def forty(number):
    """Forty finished games of every kind, in turn."""
    return [lambda n: kraken_game(n, ROLES, kraken_kraken_first()),
            skullking_hand, crazytime_game][number % 3](number)


@pytest.fixture
def long_night(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    night.host.set_cookie("lang", "en")
    device = night.host.get_cookie("device").value
    for number in range(1, 41):
        store_game(app, device, night.key, forty(number))
    return night


def codes(html):
    return re.findall(r'<img src="([^"]*bgstats\.svg\?v=\w+)"', html)


def test_the_tally_of_forty_finished_games_stays_under_150_kb(long_night):
    host = long_night.host.get(f"{long_night.url}/tally").data
    phone = long_night.phone(0).get("/me/tally").data
    live = long_night.host.get(f"{long_night.url}/tally/live").data
    assert len(host) <= LIMIT and len(phone) <= LIMIT and len(live) <= LIMIT, \
        (len(host), len(phone), len(live))
    assert len(codes(host.decode())) == 40 and "<path" not in host.decode().split(
        "tally-bgstats")[1]


def test_a_phone_fetches_a_code_only_when_it_opens_it(long_night):
    html = long_night.phone(0).get("/me/tally").data.decode()
    folded = re.findall(r'<details class="bgstats-more">.*?</details>', html, re.S)
    assert len(folded) == 40
    assert all('loading="lazy"' in one and "/me/g/" in one for one in folded)


def test_a_code_is_a_cacheable_image_of_the_link(long_night):
    html = long_night.host.get(f"{long_night.url}/tally").data.decode()
    url = codes(html)[0]
    answer = long_night.host.get(url)
    assert answer.status_code == 200 and answer.mimetype == "image/svg+xml"
    assert answer.headers["Cache-Control"] == "private, max-age=31536000, immutable"
    link = re.findall(r'class="bgstats-link" href="([^"]+)"', html)[0].replace("&amp;", "&")
    assert answer.data.decode() == qr.svg(link, qr.LOW) and bgstats.fits_qr(link)
    again = long_night.host.get(url, headers={"If-None-Match": answer.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    # An address of an older code still answers with the code as it is, not kept.
    stale = long_night.host.get(url.split("?v=")[0] + "?v=0")
    assert stale.status_code == 200 and stale.headers["Cache-Control"] == "no-store"


def test_only_those_who_see_the_tally_get_a_code_and_never_of_a_running_game(app,
                                                                            long_night):
    url = codes(long_night.host.get(f"{long_night.url}/tally").data.decode())[0]
    assert app.test_client().get(url).status_code == 404  # a stranger
    phone = long_night.phone(1)
    mine = codes(phone.get("/me/tally").data.decode())[0]
    assert phone.get(mine).status_code == 200
    other = make_night(app, ["Ann", "Bo", "Cy"])
    assert other.phone(0).get(mine).status_code == 404  # a phone of another night
    store_game(app, long_night.host.get_cookie("device").value, long_night.key,
               kraken_game(41, ROLES, kraken_all_treasure()[:2]))  # still running
    assert long_night.host.get(f"{long_night.url}/g/41/bgstats.svg").status_code == 404
    assert phone.get("/me/g/41/bgstats.svg").status_code == 404
