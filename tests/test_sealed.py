"""A secret leaks through no size: every page and fragment that carries one has the same
length on the wire, compressed or not, whatever the secret (companion/web/sealed.py).

Someone near the table can see the size of every Wi-Fi frame without the password; a
page a few bytes longer for a Skeleton than for an Explorer would tell the role.
"""

import gzip

import pytest

from bench.builders import kraken_setup, make_night, store_game
from companion.web import sealed
from tests.crazytime_log import after_match_1, law
from tests.crazytime_log import setup as crazytime_setup

NAMES = ["민수", "Jo", "지혜 🙂", "Ann", "박서준"]


def sizes(app, game, lang, seat=0):
    """What seat ``seat``'s phone and the host's "pass the tablet" page weigh, as sent
    gzipped and plain, for one game of a fresh night."""
    night = make_night(app, NAMES)
    phone = night.phone(seat)
    store_game(app, night.host.get_cookie("device").value, night.key, game)
    for client in (phone, night.host):
        client.set_cookie("lang", lang)
    out = []
    for encoding in ("gzip", "identity"):
        headers = {"Accept-Encoding": encoding}
        out += [len(phone.get("/me", headers=headers).data),
                len(phone.get("/me/live?v=-1", headers={**headers, "HX-Request": "true"}).data),
                len(night.host.post(f"{night.url}/pass/{seat}", headers=headers).data)]
    return out


def kraken(roles):
    return {"kind": "kraken", "setup": kraken_setup(roles), "events": []}


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("players", [3, 5])
def test_a_kraken_page_weighs_the_same_for_every_role(app, lang, players):
    explorer = ["explorer", "skeleton", "explorer", "explorer", "skeleton"][:players]
    skeleton = ["skeleton", "explorer", "explorer", "explorer", "skeleton"][:players]
    if players == 3:
        explorer, skeleton = ["explorer", "explorer", "skeleton"], ["skeleton", "explorer",
                                                                    "explorer"]
    assert sizes(app, kraken(explorer), lang) == sizes(app, kraken(skeleton), lang)


LAWS = [("6", "moo"), ("When someone says a number", "Everyone claps twice"),
        ("숫자 6이 나오면", "모두 “음메”라고 외친다 🐄"), ("x" * 200, "<&\"'>" * 40), ("12", "3")]


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_crazy_time_page_weighs_the_same_whatever_the_laws_say(app, lang):
    def game(when, what):
        return {"kind": "crazytime", "setup": crazytime_setup(side="blue"),
                "events": after_match_1(law("Moon", when, what))}

    weights = {sizes(app, game(when, what), lang) == sizes(app, game(*LAWS[0]), lang)
               for when, what in LAWS[1:]}
    assert weights == {True}


def test_the_sealed_page_is_the_page(app):
    """The padding and the stored secret change the size, never what the browser reads."""
    night = make_night(app, NAMES)
    phone = night.phone(0)
    store_game(app, night.host.get_cookie("device").value, night.key,
               kraken(["skeleton", "explorer", "explorer", "explorer", "skeleton"]))
    zipped = phone.get("/me", headers={"Accept-Encoding": "gzip"})
    plain = phone.get("/me", headers={"Accept-Encoding": "identity"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    text = gzip.decompress(zipped.data).decode()
    assert "Skeleton" in text and "<!--secret-" not in text and "<!--secret-" not in plain.text
    assert len(gzip.decompress(zipped.data)) == len(plain.data)


def test_a_secret_longer_than_its_slot_is_a_template_error():
    with pytest.raises(sealed.SecretTooLong):
        sealed.secret(4, lambda: "Explorer")
