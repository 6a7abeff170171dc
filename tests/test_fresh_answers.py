"""Every write's answer shows what was just done: it is drawn at the version the write
made (or a newer one), never from a screen cached at the version before it, and it
names that version (its live region asks with ``?v=<it>``).

Each test first has the other devices of the table look at their screens, so that the
process holds the night's board at the old version, as it does at a real table where
nine screens refresh after every change."""

import re

import pytest

from bench.builders import make_night
from companion import store

HTMX = {"HX-Request": "true"}
WHEN, WHAT = "LAW-WHEN-moon", "LAW-WHAT-howl"


def version(night):
    """The night's version in the database now."""
    with night.app.test_request_context():
        return store.night_by_key(night.key)["version"]


def names_version(response):
    """The version an answer's live region says it shows."""
    found = re.search(r'id="live"[^>]*hx-get="[^"]*\?v=(-?\d+)"', response.data.decode())
    assert found, response.data.decode()[:500]
    return int(found.group(1))


def look(*devices):
    """Every device looks at its screen (the board is now cached at this version)."""
    for device, url in devices:
        assert device.get(url, headers=HTMX).status_code in (200, 204)


def text(response):
    return response.data.decode()


@pytest.fixture
def skullking(night):
    game = night.start("skullking", **{f"seat{i}": "1" for i in range(4)},
                       way="custom", rounds="3")
    phones = [night.phone(i) for i in range(4)]
    look((night.host, game), *((p, "/me") for p in phones))
    return night, game, phones


def test_a_phones_bid_answers_with_the_bid_sent(skullking):
    night, game, phones = skullking
    before = version(night)
    answer = phones[1].post("/me/skullking/bid", data={"round": 1, "bid": 2}, headers=HTMX)
    assert answer.status_code == 200
    assert "Bid sent ✓" in text(answer) and "You bid 2" in text(answer)
    assert "1 of 4 bids in" in text(answer)
    assert names_version(answer) == version(night) == before + 1


def test_each_phones_bid_answers_with_every_bid_in_so_far(skullking):
    night, game, phones = skullking
    for seat, phone in enumerate(phones):
        look(*((p, "/me") for p in phones), (night.host, game))
        answer = phone.post("/me/skullking/bid", data={"round": 1, "bid": seat % 2},
                            headers=HTMX)
        if seat < 3:
            assert f"{seat + 1} of 4 bids in" in text(answer)
            assert "Bid sent ✓" in text(answer)
        assert names_version(answer) == version(night)


def test_a_changed_bid_answers_with_the_new_bid(skullking):
    night, game, phones = skullking
    phones[2].post("/me/skullking/bid", data={"round": 1, "bid": 1}, headers=HTMX)
    look(*((p, "/me") for p in phones), (night.host, game))
    answer = phones[2].post("/me/skullking/bid", data={"round": 1, "bid": 3}, headers=HTMX)
    assert "You bid 3" in text(answer) and "You bid 1" not in text(answer)
    assert names_version(answer) == version(night)


def test_a_whole_page_answer_shows_the_bid_too(skullking):
    """A phone without htmx (no JavaScript) posts the form and gets the whole page."""
    night, game, phones = skullking
    answer = phones[0].post("/me/skullking/bid", data={"round": 1, "bid": 0})
    assert "Bid sent ✓" in text(answer)
    assert names_version(answer) == version(night)


@pytest.fixture
def crazytime(night):
    game = night.start("crazytime", **{f"seat{i}": "1" for i in range(5)}, side="blue",
                       starting_law="1")
    phones = [night.phone(i) for i in range(5)]

    def host(action, **form):
        html = night.host.get(game).data.decode()
        form.setdefault("pos", re.search(r'name="pos" value="(\d+)"', html).group(1))
        return night.host.post(f"{game}/crazytime/{action}", data=form, headers=HTMX)

    host("law", name="Echo", when="Echo-when", what="Echo-what")
    for seat, n in {0: 2, 1: 2, 2: 1, 3: 1}.items():  # 박서준 (4) wins and leaves
        for _ in range(n):
            assert host("penalty", seat=seat).status_code == 200
    look((night.host, game), *((p, "/me") for p in phones))
    return night, game, phones, host


def test_a_law_from_a_phone_answers_with_the_law_held(crazytime):
    night, game, phones, _host = crazytime
    answer = phones[2].post("/me/crazytime/law",
                            data={"name": "Moon", "when": WHEN, "what": WHAT}, headers=HTMX)
    assert answer.status_code == 200
    assert WHEN in text(answer) and WHAT in text(answer) and "Moon" in text(answer)
    assert names_version(answer) == version(night)


def test_a_host_action_answers_at_its_own_version(crazytime):
    night, game, phones, host = crazytime
    phones[2].post("/me/crazytime/law", data={"name": "Moon", "when": WHEN, "what": WHAT})
    look((night.host, game), *((p, "/me") for p in phones))
    answer = host("learn", law="2", seat="4")
    assert answer.status_code == 200
    assert names_version(answer) == version(night)
    # and the winner who left, told the law by the table, holds it on the next screen
    assert WHEN in text(phones[4].get("/me", headers=HTMX))


def test_seeing_a_secret_moves_the_host_screen_on(night):
    game = night.start("kraken", **{f"seat{i}": "1" for i in range(5)})
    jo = night.phone(1)
    look((night.host, game), (jo, "/me"))
    before = version(night)
    assert jo.post("/me/seen").status_code == 204
    live = night.host.get(f"{game}/live?v={before}", headers=HTMX)
    assert live.status_code == 200 and names_version(live) == before + 1
    seen = re.search(r'<li data-seen="1">(.*?)</li>', text(live), re.S).group(1)
    assert "✓" in seen


@pytest.mark.parametrize("action, form", [
    ("seats/1/colour", {"colour": "green"}),
    ("seats/2/code", {}),
    ("seats/3/tablet", {"on": "1"}),
    ("seats/1/release", {}),
])
def test_a_night_level_form_answers_at_its_own_version(app, action, form):
    night = make_night(app)
    phones = [night.phone(i) for i in range(5)]
    look((night.host, night.url + "/live"), *((p, "/me") for p in phones))
    answer = night.host.post(f"{night.url}/{action}", data=form, headers=HTMX)
    assert answer.status_code == 200
    assert names_version(answer) == version(night)


def test_a_phone_that_joined_answers_at_the_version_its_claim_made(night):
    jo = night.phone(1)
    look((jo, "/me"), (night.host, night.url + "/live"))
    page = jo.get("/me")
    assert names_version(page) == version(night)


# --- a language switch comes back to the page it was asked from -----------------------

def test_switching_language_on_are_you_comes_back_to_the_question(night):
    token = night.tokens[2]
    phone = night.app.test_client()
    question = phone.get(f"/s/{token}")
    assert 'name="next" value="/s/' in question.data.decode()
    answer = phone.post("/lang", data={"lang": "ko", "next": f"/s/{token}"})
    assert answer.status_code == 303 and answer.headers["Location"] == f"/s/{token}"
    again = phone.get(answer.headers["Location"])
    assert 'lang="ko"' in again.data.decode() and "지혜 🙂" in again.data.decode()
    # nothing was claimed by it: the seat is still free, and the phone holds none
    assert phone.get("/me").data.decode().count('data-action="seat-claim"') == 0
    with night.app.test_request_context():
        assert store.seat_by_token(token)["device"] is None


def test_switching_language_on_a_host_code_comes_back_to_it(night):
    html = night.host.post(f"{night.url}/hosts").data.decode()
    token = re.search(r"/h/([A-Za-z0-9_-]{32,64})", html).group(1)
    tablet = night.app.test_client()
    answer = tablet.post("/lang", data={"lang": "en", "next": f"/h/{token}"})
    assert answer.headers["Location"] == f"/h/{token}"
    with night.app.test_request_context():
        assert not store.is_host(store.night_by_key(night.key), "nobody")
    assert tablet.get(f"{night.url}").status_code == 404  # still no host


@pytest.mark.parametrize("target", ["/s/" + "A" * 43, "/h/" + "B" * 43, "/s/short"])
def test_a_code_that_opens_nothing_is_no_way_back(client, target):
    assert client.post("/lang", data={"lang": "en", "next": target}).headers["Location"] == "/"
