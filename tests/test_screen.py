"""The room's big screen: a one-time screen code makes a TV or spare laptop a read-only
screen of the night. It reads the public board and nothing more: no secret through a
whole game of each kind, no form, and none of its devices' forms records anything."""

import re
import sqlite3
from contextlib import contextmanager

import pytest

from bench.builders import make_night
from companion import store
from companion.store.connection import now
from tests.crawling import WHAT, WHEN, check_headers, crawl, pages, roles_in
from tests.over_http import SCRIPTS, legal_in, state_of
from tests.pages import page_text
from tests.screens import screen_device, show_code

NUMBER = re.compile(r"data-screen-number>(\d{3} \d{3})<")
TV_CODE = re.compile(r"hx-get=\"/screen/([A-Za-z0-9_-]{32,64})\"")


def screen_pages(night):
    return [f"{night.url}/screen", f"{night.url}/screen/live",
            f"{night.url}/screen/live?v=0", f"{night.url}/screen/stream"]


def dump(night):
    conn = sqlite3.connect(night.app.config["DATABASE"])
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


# --- the code -------------------------------------------------------------------------


def test_a_screen_code_opens_a_question_and_its_answer_makes_a_screen(night):
    token = show_code(night)
    tv = night.app.test_client()
    html = tv.get(f"/t/{token}").data.decode()
    assert "Make this the room&#39;s screen" in html or "Make this the room's screen" in html
    assert tv.get(f"{night.url}/screen").status_code == 404  # a question changes nothing
    assert tv.post(f"/t/{token}").status_code == 303
    assert tv.get(f"{night.url}/screen").status_code == 200
    host_page = night.host.get(night.url).data.decode()
    assert "A screen, since" in host_page


def tv_number(tv):
    """A TV opens /screen, which asks for a number as it loads: (number, QR token)."""
    html = tv.get("/screen").data.decode()
    assert NUMBER.search(html) is None and 'hx-trigger="load"' in html  # a GET made none
    html = tv.post("/screen", headers={"HX-Request": "true"}).data.decode()
    return NUMBER.search(html).group(1), TV_CODE.search(html).group(1)


def test_the_number_a_tv_shows_typed_by_the_host_makes_it_the_screen(night):
    tv = night.app.test_client()
    number, token = tv_number(tv)
    assert NUMBER.search(tv.get("/screen").data.decode()).group(1) == number  # kept
    assert tv.get(f"/screen/{token}").status_code == 204  # waiting
    assert tv.get(f"{night.url}/screen").status_code == 404
    typed = number.replace(" ", "")
    response = night.host.post(f"{night.url}/screens/number", data={"number": typed})
    assert response.status_code == 303 and response.headers["Location"] == night.url
    answer = tv.get(f"/screen/{token}", headers={"HX-Request": "true"})
    assert answer.headers["HX-Redirect"] == f"{night.url}/screen"
    assert tv.get(f"{night.url}/screen").status_code == 200
    assert "A screen, since" in night.host.get(night.url).data.decode()
    # the host's cookie, key or code never reach the TV's pages
    for html in (tv.get("/screen").data.decode(), tv.get(f"/screen/{token}").data.decode()):
        assert night.key not in html or "/n/" + night.key + "/screen" in html
    # used once: the same number again pairs nothing
    other = night.app.test_client()
    refused = night.host.post(f"{night.url}/screens/number", data={"number": number})
    assert refused.status_code == 429  # a screen paired a moment ago: wait a minute
    assert "paired a screen a moment ago" in refused.data.decode()
    with minute_later():
        refused = night.host.post(f"{night.url}/screens/number", data={"number": number})
    assert refused.status_code == 422
    assert "No screen shows that number now" in refused.data.decode()
    assert other.get(f"{night.url}/screen").status_code == 404


@contextmanager
def minute_later():
    """The laptop's clock a minute and a second on, for what is inside."""
    from companion.store import connection as db

    real = db.time.time
    moved = real() + 61
    db.time.time = lambda: moved
    try:
        yield
    finally:
        db.time.time = real


def test_a_wrong_or_expired_number_pairs_nothing(night):
    tv = night.app.test_client()
    number, token = tv_number(tv)
    wrong = f"{(int(number.replace(' ', '')) + 1) % 1000000:06d}"
    before = store_screens(night)
    refused = night.host.post(f"{night.url}/screens/number", data={"number": wrong})
    assert refused.status_code == 422 and "No screen shows that number now" in \
        refused.data.decode()
    for typo in ("not a number", "12345", ""):  # not a screen's number: not a guess
        answer = night.host.post(f"{night.url}/screens/number", data={"number": typo})
        assert answer.status_code == 422 and "has 6 digits" in answer.data.decode()
    conn = sqlite3.connect(night.app.config["DATABASE"])
    with conn:
        conn.execute("update screen_numbers set expires = ? where token = ?", [now(-1), token])
    refused = night.host.post(f"{night.url}/screens/number", data={"number": number})
    assert refused.status_code == 422
    assert store_screens(night) == before == []
    # the TV sees its number ended, and asks for a new one
    html = tv.get(f"/screen/{token}").data.decode()
    assert 'hx-trigger="load"' in html and NUMBER.search(html) is None
    conn.execute("update screen_numbers set expires = ? where token = ?", [now(600), token])
    conn.commit()
    conn.close()
    assert night.host.post(f"{night.url}/screens/number",
                           data={"number": number}).status_code == 422  # stays ended
    new_number, _ = tv_number(tv)
    assert night.host.post(f"{night.url}/screens/number",
                           data={"number": new_number}).status_code == 303


def store_screens(night):
    conn = sqlite3.connect(night.app.config["DATABASE"])
    try:
        return conn.execute("select device from screens").fetchall()
    finally:
        conn.close()


def test_guessing_numbers_is_refused_after_a_few_wrong_ones(night):
    tv = night.app.test_client()
    number, _ = tv_number(tv)
    wrong = f"{(int(number.replace(' ', '')) + 1) % 1000000:06d}"
    for _ in range(store.WRONG_NUMBERS):
        assert night.host.post(f"{night.url}/screens/number",
                               data={"number": wrong}).status_code == 422
    # now even the right number is refused, with a message, and nothing is paired
    refused = night.host.post(f"{night.url}/screens/number", data={"number": number})
    assert refused.status_code == 429 and "Too many wrong numbers" in refused.data.decode()
    assert tv.get(f"{night.url}/screen").status_code == 404
    # another host of another night, from the same address, is refused too
    other = make_night(night.app)
    assert other.host.post(f"{other.url}/screens/number",
                           data={"number": number}).status_code == 429


def test_the_tvs_qr_opens_a_question_on_the_hosts_tablet(night):
    tv = night.app.test_client()
    _number, token = tv_number(tv)
    question = night.host.get(f"/tv/{token}")
    assert question.status_code == 200 and "on that screen?" in question.data.decode()
    assert tv.get(f"{night.url}/screen").status_code == 404  # a question changes nothing
    assert night.app.test_client().get(f"/tv/{token}").status_code == 404  # not a host
    assert night.app.test_client().post(f"/tv/{token}").status_code == 404
    answer = night.host.post(f"/tv/{token}", data={"key": night.key})
    assert answer.status_code == 303 and answer.headers["Location"] == night.url
    assert tv.get(f"{night.url}/screen").status_code == 200
    with minute_later():  # (a screen paired a moment ago holds the next one a minute)
        used = night.host.post(f"/tv/{token}", data={"key": night.key})
    assert used.status_code == 410 and "no longer works" in used.data.decode()


def test_a_host_or_a_seated_phone_is_not_offered_a_number(night):
    assert night.host.get("/screen").status_code == 409
    assert night.host.post("/screen").status_code == 409
    phone = night.phone(1)
    assert phone.get("/screen").status_code == 409
    conn = sqlite3.connect(night.app.config["DATABASE"])
    assert conn.execute("select count(*) from screen_numbers").fetchone()[0] == 0
    conn.close()


def test_a_used_code_is_refused_with_a_clear_message(night):
    token = show_code(night)
    assert night.app.test_client().post(f"/t/{token}").status_code == 303
    late = night.app.test_client()
    for answer in (late.get(f"/t/{token}"), late.post(f"/t/{token}")):
        assert answer.status_code == 410
        assert "This screen code no longer works" in answer.data.decode()
    assert late.get(f"{night.url}/screen").status_code == 404


def test_an_expired_code_is_refused_and_stays_ended(night):
    token = show_code(night)
    conn = sqlite3.connect(night.app.config["DATABASE"])
    conn.execute("update screen_invites set expires = ? where token = ?", [now(-1), token])
    conn.commit()
    tv = night.app.test_client()
    assert tv.post(f"/t/{token}").status_code == 410
    conn.execute("update screen_invites set expires = ? where token = ?", [now(600), token])
    conn.commit()
    conn.close()
    assert tv.post(f"/t/{token}").status_code == 410  # a clock set back revives nothing


def test_a_newer_code_cancels_the_one_shown_before(night, monkeypatch):
    from companion.store import connection as db

    old = show_code(night)
    shown = db.time.time()
    monkeypatch.setattr(db.time, "time", lambda: shown + 31)  # asked again seconds later: the same
    new = show_code(night)
    tv = night.app.test_client()
    assert tv.post(f"/t/{old}").status_code == 410
    assert tv.post(f"/t/{new}").status_code == 303


def test_removing_the_host_who_showed_a_code_cancels_it(night):
    invite = re.search(r"/h/([A-Za-z0-9_-]{32,64})",
                       night.host.post(f"{night.url}/hosts").data.decode()).group(1)
    second = night.app.test_client()
    assert second.post(f"/h/{invite}").status_code == 303
    token = show_code(night, host=second)
    host_id = max(h["id"] for h in hosts_of(night))
    assert night.host.post(f"{night.url}/hosts/{host_id}/remove").status_code == 303
    answer = night.app.test_client().post(f"/t/{token}")
    assert answer.status_code == 410
    assert "This screen code no longer works" in answer.data.decode()


def hosts_of(night):
    with night.app.test_request_context():
        return store.hosts(store.night_by_key(night.key)["id"])


def test_an_unknown_code_is_a_plain_404(night):
    assert night.app.test_client().get("/t/" + "A" * 43).status_code == 404
    assert night.app.test_client().post("/t/" + "A" * 43).status_code == 404


def test_a_seat_phone_stays_a_seat_and_the_host_just_looks(night):
    token = show_code(night)
    phone = night.phone(1)
    assert phone.post(f"/t/{token}").status_code == 409
    assert phone.get("/me").status_code == 200 and "Jo" in phone.get("/me").data.decode()
    response = night.host.post(f"/t/{token}")
    assert response.status_code == 303 and response.headers["Location"].endswith("/screen")
    assert night.host.get(night.url).status_code == 200  # still the host, code unused
    assert night.app.test_client().post(f"/t/{token}").status_code == 303


def test_a_host_or_a_seat_phone_of_another_night_cannot_become_a_screen(night, app):
    """Either would lose its forms (a screen records nothing), in its own night too."""
    from bench.builders import make_night

    other = make_night(app, ["Mia", "Noa", "Oli"])
    phone = other.phone(0)
    token = show_code(night)
    answer = other.host.post(f"/t/{token}")
    assert answer.status_code == 409 and "so this device stays a host" in answer.data.decode()
    assert other.host.get(f"/t/{token}").status_code == 409
    assert phone.post(f"/t/{token}").status_code == 409
    assert other.host.post(f"{other.url}/seats/1/code").status_code in (200, 303)
    assert phone.get("/me").status_code == 200
    assert night.app.test_client().post(f"/t/{token}").status_code == 303  # code unused


def test_the_host_removes_a_screen_and_it_reads_nothing_more(night):
    tv = screen_device(night)
    with night.app.test_request_context():
        screen_id = store.screens(store.night_by_key(night.key)["id"])[0]["id"]
    assert night.host.post(f"{night.url}/screens/{screen_id}/remove").status_code == 303
    for url in screen_pages(night):
        assert tv.get(url).status_code == 404
    assert "A screen, since" not in night.host.get(night.url).data.decode()


def test_a_screen_reads_only_its_own_night(app, night):
    from bench.builders import make_night

    other = make_night(app, names=["A", "B", "C"])
    tv = screen_device(night)
    assert tv.get(f"{other.url}/screen").status_code == 404
    assert tv.get(f"{other.url}/screen/stream").status_code == 404
    assert night.app.test_client().get(f"{night.url}/screen/stream").status_code == 404


def test_the_screen_loads_each_game_s_own_styles_after_its_own(night):
    """A game's layout for the room's screen is in its own stylesheet (GameDef.assets),
    not in static/screen.css: the screen links every game's, after screen.css."""
    tv = screen_device(night)
    html = tv.get(f"{night.url}/screen").data.decode()
    links = re.findall(r'<link rel="stylesheet" href="/static/([\w./-]+\.css)\?', html)
    with night.app.app_context():
        games = [name for game in store.known_games().values() for name in game.assets
                 if name.endswith(".css")]
    assert len(games) == 3 and links[-len(games) - 1:] == ["screen.css", *games], links


# --- a screen records nothing ---------------------------------------------------------


FORM = {"seat": 1, "card": "empty", "pos": 1, "round": 1, "bid": 1, "name": ["X", "Y", "Z"],
        "colour": "red", "on": "1", "when": "w", "what": "w", "amount": "5", "reason": "r",
        "seat0": "on", "seat1": "on", "seat2": "on", "law": 1, "won-0": 1}


@pytest.mark.parametrize("kind", ["kraken", "skullking", "crazytime"])
def test_a_screen_device_cannot_record_host_or_take_a_seat(night, kind):
    url = night.start(kind, **SCRIPTS[kind][0])
    number = int(url.rsplit("/", 1)[1])
    tv = screen_device(night)
    invite = re.search(r"/h/([A-Za-z0-9_-]{32,64})",
                       night.host.post(f"{night.url}/hosts").data.decode()).group(1)
    values = {"key": night.key, "number": number, "position": 0, "host_id": 1,
              "screen_id": 1, "kind": kind, "round_number": 1}
    tokens = {"hosting.become_host": invite, "phones.claim": night.tokens[2],
              "exchange.import_choice": "A" * 43, "screen.pair_token": "A" * 43}
    before = dump(night)
    tried = 0
    for rule in night.app.url_map.iter_rules():
        if "POST" not in rule.methods or rule.endpoint in (
                "web.set_language", "screen.use_code", "screen.offer"):
            continue
        args = {name: values[name] for name in rule.arguments if name != "token"}
        if "token" in rule.arguments:
            args["token"] = tokens[rule.endpoint]
        path = rule.build(args, append_unknown=False)[1]
        for headers in ({}, {"HX-Request": "true"}):
            response = tv.post(path, data=FORM, headers=headers)
            assert response.status_code in (403, 404), (path, response.status_code)
            if response.status_code == 403:
                assert "the room&#39;s screen" in response.data.decode(), path
        tried += 1
    assert tried >= 30
    assert dump(night) == before  # nothing changed: no event, no host, no seat, no night
    assert tv.get(night.url).status_code == 404  # not a host
    mine = tv.get("/me")  # no seat: (read as text, not HTML, whose form token may hold "Jo")
    assert mine.status_code == 200 and "Jo" not in page_text(mine.data.decode())
    assert "No seat on this phone" in mine.data.decode()
    assert night.app.test_client().post(f"/h/{invite}").status_code == 303  # still unused


def test_what_stays_open_to_a_screen_changes_no_record(night):
    tv = screen_device(night)
    before = dump(night)
    assert tv.post("/lang", data={"lang": "ko", "next": f"{night.url}/screen"}) \
        .status_code == 303
    assert "큰 화면" in tv.get(f"{night.url}/screen").data.decode()
    assert dump(night) == before


# --- no secret through a whole game of each kind ---------------------------------------


def check_screen(tv, night):
    """Crawl the screen's pages; return their texts (status 200 only)."""
    answers = crawl(tv, screen_pages(night))
    check_headers(answers)
    texts = []
    for url, status, _headers, text in answers:
        assert status in (200, 204), (url, status)
        if status != 200 or url.endswith("stream"):
            continue
        assert "<form" not in text and "<button" not in text and "hx-post" not in text, url
        assert "<input" not in text and "<select" not in text, url
        assert "data-secret" not in text and 'class="secret"' not in text, url
        title = re.search(r"<title>(.*?)</title>", text, re.S)
        if title:
            assert title.group(1).strip() == "The room's screen · Companion"
        texts.append(text)
    return texts


def play(night, kind, on_step, law_texts=None):
    """Play a whole scripted game through the host's forms; ``on_step(state)`` after
    each step. Crazy Time's laws carry cards of their own (``law_texts`` collects them)."""
    url = night.start(kind, **SCRIPTS[kind][0])
    number = int(url.rsplit("/", 1)[1])
    database = night.app.config["DATABASE"]
    while True:
        state, pos = state_of(database, night.key, number)
        on_step(state)
        script = SCRIPTS[kind][1]
        action = (script(state, pos, legal_in(database, night.key, number))
                  if kind == "crazytime" else script(state, pos))
        if action is None:
            return url
        path, form = action
        if path == "crazytime/law":
            form = {**form, "when": f"{WHEN} {pos}", "what": f"{WHAT} {pos}"}
            law_texts.extend([form["when"], form["what"]])
        response = night.host.post(f"{url}/{path}", data=form)
        assert response.status_code == 303, (path, response.data.decode()[:800])


def test_a_whole_kraken_game_shows_no_role_before_the_end(night):
    tv = screen_device(night)
    seen_end = []

    def on_step(state):
        for text in check_screen(tv, night):
            if state["finished"]:
                assert len(roles_in(text)) >= 4 and "kraken-end" in text
                seen_end.append(True)
            else:
                assert roles_in(text) == [] and "kraken-end" not in text
                assert "data-role" not in text and "unused-role" not in text
                assert 'data-revealed="empty"' in text  # the public board is there
    url = play(night, "kraken", on_step)
    assert seen_end
    for _url, status, _h, text in crawl(tv, pages(night, url)):
        assert status < 500 and "tally-table" not in text


def test_a_whole_skull_king_game_shows_no_bid_before_yo_ho_ho(night):
    tv = screen_device(night)
    phases = set()

    def on_step(state):
        if state["finished"]:
            return
        rnd = state["rounds"][state["current"]]
        for text in check_screen(tv, night):
            assert "You bid" not in text
            current = re.search(r'<tr class="current[^"]*">(.*?)</tr>', text, re.S)
            if state["phase"] == "bidding":
                phases.add("bidding")
                assert "sk-screen-bids" not in text and "Bids total" not in text
                assert current and "sk-bw" not in current.group(1)
                assert f'data-bids-in="{len(rnd["bid_done"])}"' in text
            else:
                phases.add("playing")
                assert "sk-screen-bids" in text  # every bid, once revealed
    url = play(night, "skullking", on_step)
    assert phases == {"bidding", "playing"}
    final = tv.get(f"{night.url}/screen").data.decode()
    assert "Final standings" in final and "tally-table" not in final
    assert final.count('data-hero="won-') == 1  # who won, said once
    for _url, status, _h, text in crawl(tv, pages(night, url)):
        assert status < 500 and "You bid" not in text  # elsewhere it is a visitor


def test_a_whole_crazy_time_game_never_shows_a_laws_cards(night):
    tv = screen_device(night)
    laws = []

    def on_step(state):
        for text in check_screen(tv, night):
            for card in laws:
                assert card not in text
            for law in state["laws"]:
                assert law["name"] in text  # the name only
    play(night, "crazytime", on_step, laws)
    assert laws
    final = tv.get(f"{night.url}/screen").data.decode()
    assert "Final standings" in final
    assert all(card not in final for card in laws)


def test_a_game_with_no_board_for_the_screen_shows_its_name_and_no_secret(app4):
    """A fourth game without ``_screen.html``: its title and whether it runs, nothing of
    its state (the core names no game)."""
    from bench.builders import make_night

    night = make_night(app4, names=["Ann", "Bo", "Cy"])
    tv = screen_device(night)
    night.start("secretnumber", seat0="on", seat1="on", seat2="on", top="9")
    html = tv.get(f"{night.url}/screen").data.decode()
    assert "Secret Number" in html and "in play" in html
    assert "data-secret" not in html and "<form" not in html


def test_numbers_a_tv_asks_for_are_bounded_by_address(night):
    night.app.config["SCREENS_AN_HOUR"] = 2
    for _ in range(2):
        assert night.app.test_client().post("/screen").status_code == 303
    refused = night.app.test_client().post("/screen", headers={"HX-Request": "true"})
    assert refused.status_code == 429 and "too many screen numbers" in refused.data.decode()


def test_a_won_game_s_banner_names_each_winner_in_their_colour_and_in_korean_each_with_님(
        app):
    for _ in range(30):  # a side that wins together (the roles are dealt at random: the
        night = make_night(app)  # Kraken may win alone)
        tv = screen_device(night)
        play(night, "kraken", lambda state: None)
        html = tv.get(f"{night.url}/screen").data.decode()
        banner = re.search(r'<p class="screen-hero screen-hero-won.*?</p>', html,
                           re.S).group(0)
        chips = re.findall(r"<span class=\"player (pc-[a-z]+)\">([^<]+)</span>", banner)
        if len(chips) >= 2:
            break
    assert len(chips) >= 2, banner
    assert len({hue for hue, _ in chips}) == len(chips)  # each in their own colour
    assert tv.post("/lang", data={"lang": "ko", "next": "/"}).status_code == 303
    html = tv.get(f"{night.url}/screen").data.decode()
    banner = re.search(r'<p class="screen-hero screen-hero-won.*?</p>', html, re.S).group(0)
    said = re.sub(r"<[^>]+>", "", banner)
    for _, name in chips:  # "지우 님, 서연 님 승리!", never "지우, 서연 님 승리!"
        assert re.search(rf"{re.escape(name)}\s님", said), said


def test_a_screen_lapses_half_a_day_after_it_was_paired(night, monkeypatch):
    """(a TV paired once never reads the host's later boards, nor its Wi-Fi code)"""
    from companion.store import connection as db
    from companion.store.screens import SCREEN_HOURS

    tv = screen_device(night)
    assert tv.get(f"{night.url}/screen").status_code == 200
    assert re.search(r"/screens/\d+/remove", night.host.get(night.url).data.decode())
    paired = db.time.time()
    monkeypatch.setattr(db.time, "time", lambda: paired + SCREEN_HOURS * 3600 - 60)
    assert tv.get(f"{night.url}/screen").status_code == 200
    monkeypatch.setattr(db.time, "time", lambda: paired + SCREEN_HOURS * 3600 + 1)
    assert tv.get(f"{night.url}/screen").status_code == 404
    assert tv.get(f"{night.url}/screen/live").status_code == 404
    assert not re.search(r"/screens/\d+/remove", night.host.get(night.url).data.decode())
    # no longer a screen: it may start a night of its own
    assert tv.post("/nights", data={"name": ["A", "B", "C"]}).status_code == 303


# --- the room's TV taken first by a guest: the host sees it, the TV undoes it ----------

GUEST = {"REMOTE_ADDR": "127.0.0.2"}  # a guest's phone, at another address of the Wi-Fi


def guest_night(app):
    """A guest who hosts a night of their own, from their own address."""
    guest = app.test_client()
    guest.environ_base.update(GUEST)
    made = guest.post("/nights", data={"name": ["Mallory", "Trudy", "Eve"]})
    return guest, made.headers["Location"]


def test_a_number_someone_else_paired_first_is_told_as_taken_not_mistyped(night):
    tv = night.app.test_client()
    number, _token = tv_number(tv)
    guest, guest_url = guest_night(night.app)
    assert guest.post(f"{guest_url}/screens/number", data={"number": number}).status_code == 303
    refused = night.host.post(f"{night.url}/screens/number", data={"number": number})
    assert refused.status_code == 422
    text = page_text(refused.data.decode())
    assert "Another device paired that screen a moment ago" in text
    assert "Not our table? New number" in text
    assert "No screen shows that number now" not in text


def test_the_tv_says_whose_night_it_joined_and_leaves_it_for_a_new_number(night):
    tv = night.app.test_client()
    number, token = tv_number(tv)
    guest, guest_url = guest_night(night.app)
    guest.post(f"{guest_url}/screens/number", data={"number": number})
    page = re.sub(r"</?bdi>", "", tv.get(f"{guest_url}/screen").data.decode())
    assert "This screen now shows the night of" in page and "Mallory, Trudy, Eve" in page
    assert 'href="/screen">Not our table? New number</a>' in page
    assert "<form" not in page and "<button" not in page
    # the TV asks for a new number: it leaves the guest's night at once
    html = tv.post("/screen", headers={"HX-Request": "true"}).data.decode()
    new_number = NUMBER.search(html).group(1)
    assert tv.get(f"{guest_url}/screen").status_code == 404
    assert not re.search(r"/screens/\d+/remove", guest.get(guest_url).data.decode())
    assert night.host.post(f"{night.url}/screens/number",
                           data={"number": new_number}).status_code == 303
    assert tv.get(f"{night.url}/screen").status_code == 200


def test_the_tv_says_whose_night_only_for_a_minute_or_two(night, monkeypatch):
    from companion.store import connection as db
    from companion.store.screens import JOINED_MINUTES

    tv = night.app.test_client()
    number, _ = tv_number(tv)
    night.host.post(f"{night.url}/screens/number", data={"number": number})
    assert "Not our table?" in tv.get(f"{night.url}/screen").data.decode()
    paired = db.time.time()
    monkeypatch.setattr(db.time, "time", lambda: paired + JOINED_MINUTES * 60 + 1)
    assert "Not our table?" not in tv.get(f"{night.url}/screen").data.decode()


def test_a_screen_code_s_tv_is_not_asked_whose_night(night):
    """(the laptop that answered a screen code chose the night itself)"""
    tv = screen_device(night)
    assert "Not our table?" not in tv.get(f"{night.url}/screen").data.decode()


def test_a_host_device_or_its_address_pairs_at_most_one_screen_a_minute(night):
    guest, guest_url = guest_night(night.app)
    first, second = night.app.test_client(), night.app.test_client()
    number, _ = tv_number(first)
    assert guest.post(f"{guest_url}/screens/number", data={"number": number}).status_code == 303
    number, token = tv_number(second)
    refused = guest.post(f"{guest_url}/screens/number", data={"number": number})
    assert refused.status_code == 429
    assert "paired a screen a moment ago" in page_text(refused.data.decode())
    assert guest.post(f"/tv/{token}", data={}).status_code == 429  # by its QR too
    another = night.app.test_client()  # another device of the guest's, same address
    another.environ_base.update(GUEST)
    made = another.post("/nights", data={"name": ["X", "Y", "Z"]}).headers["Location"]
    assert another.post(f"{made}/screens/number", data={"number": number}).status_code == 429
    with minute_later():
        assert guest.post(f"{guest_url}/screens/number",
                          data={"number": number}).status_code == 303
    # the table's host, at its own address, was never held up
    third = night.app.test_client()
    number, _ = tv_number(third)
    assert night.host.post(f"{night.url}/screens/number",
                           data={"number": number}).status_code == 303
