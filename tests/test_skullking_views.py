"""Skull King through the real routes (docs/rules.md#skull-king): starting a game, bids
from the tablet and from phones kept secret until "Yo-ho-ho!", the results editor and
every refusal it shows, the score table, and correcting an earlier round."""

import re

import pytest

from bench.builders import make_night
from companion.app import create_app
from tests.pages import unmarked, without_tokens
from tests.refusing import status_of
from tests.skullking_host import (
    bid_round,
    cell,
    host_bid,
    ranks,
    refused,
    result,
    reveal,
    start,
    text,
    totals,
)

SIX = ["Mina", "Jo", "Sun", "Ann", "Lee", "Kim"]


# --------------------------------------------------------------------------- starting


def test_the_start_form_offers_both_editions_every_way_and_the_options(night):
    html = text(night.host.get(f"{night.url}/new/skullking"))
    for words in ("The classic Korean box", "The 2021 edition", "Rascal", "Skip to the Brawl",
                  "Swift-n-Salty", "Broadside", "Whirlpool", "Past Your Bedtime",
                  "Even Keeled", "Custom", "Loot", "Kraken", "White Whale", "First dealer"):
        assert words in html
    assert html.count('type="checkbox" name="seat') == 5


def test_a_custom_sequence_and_the_first_dealer_come_from_the_form(night):
    game = start(night, players=(0, 2, 4), way="custom", rounds="1, 2,3", first_dealer="2")
    html = text(night.host.get(game))
    assert "Round 1 of 3" in html
    # dealer Sun (seat 2), the next player in this game (Ann is not playing: 박서준) leads
    assert 'data-dealer="2">Dealer: 지혜 🙂<' in html
    assert 'data-lead="4">Leads first: 박서준<' in html


@pytest.mark.parametrize("form, words", [
    ({"edition": "classic", "scoring": "rascal"}, "Rascal's scoring belongs to the 2021 edition."),
    ({"edition": "classic", "loot": "1"}, "belong to the 2021 edition"),
    ({"way": "custom", "rounds": "5,x,5"}, "separated by commas, like 5,5,5"),
    ({"way": "custom", "rounds": ""}, "separated by commas, like 5,5,5"),
    ({"way": "custom", "rounds": "5,²"}, "separated by commas, like 5,5,5"),
    ({"way": "custom", "rounds": "5,11"}, "Each round deals 1 to 10 cards at this table."),
    ({"way": "sideways"}, "Unknown way to play: sideways."),
    ({"first_dealer": "4"}, "The first dealer must be one of the players."),
    ({"first_dealer": "zz"}, "is not a whole number"),
    ({"edition": "nope"}, "Unknown edition: nope."),
])
def test_bad_combinations_are_refused_and_nothing_starts(night, form, words):
    data = {"seat0": "1", "seat1": "1", "seat2": "1", **form}
    response = night.host.post(f"{night.url}/new/skullking", data=data)
    refused(response, 422, words)
    assert night.host.get(f"{night.url}/g/1").status_code == 404


def test_a_game_needs_players(night):
    refused(night.host.post(f"{night.url}/new/skullking", data={}), 422, "Choose the players.")


def test_seven_players_of_the_classic_box_are_refused(app):
    night = make_night(app, SIX + ["Oh"])
    data = {f"seat{p}": "1" for p in range(7)} | {"edition": "classic"}
    refused(night.host.post(f"{night.url}/new/skullking", data=data), 422,
            "This edition is for 2 to 6 players.")


# --------------------------------------------------------------------------- bids


def test_the_host_page_shows_round_cards_dealer_and_lead(night):
    game = start(night, first_dealer="1")
    html = text(night.host.get(game))
    assert "Round 1 of 10" in html
    assert 'data-cards="1">1 card<' in html
    assert 'data-dealer="1">Dealer: Jo<' in html
    assert 'data-lead="2">Leads first: 지혜 🙂<' in html


@pytest.mark.parametrize("bid, words", [
    ("2", "A bid must be between 0 and 1."),
    ("-1", "A bid must be between 0 and 1."),
    ("one", "“one” is not a whole number."),
    ("", "A number is missing"),
    ("²", "“²” is not a whole number."),
    ("99999", "“99999” is not a whole number."),
])
def test_a_bid_outside_0_to_the_cards_or_unreadable_is_refused(night, bid, words):
    game = start(night)
    pos = night.pos(game)
    refused(host_bid(night, game, 0, bid), 422, words)
    assert night.pos(game) == pos


@pytest.mark.parametrize("seat, words", [
    ("4", "That seat is not in this game."),
    ("99", "That seat is not in this game."),
    ("x", "“x” is not a whole number."),
])
def test_a_bid_for_an_unknown_seat_is_refused(night, seat, words):
    game = start(night)
    refused(host_bid(night, game, seat, 0), 422, words)
    assert night.pos(game) == 0


def test_a_phone_cannot_bid_for_another_seat(night):
    game = start(night)
    jo = night.phone(1)
    response = jo.post("/me/skullking/bid", data={"round": 1, "seat": 2, "bid": 0})
    refused(response, 422, "A phone can only bid for its own seat.")
    assert night.pos(game) == 0


def test_a_phone_bids_for_its_own_seat_and_sees_only_its_own_bid(night):
    game = start(night, way="custom", rounds="3")
    jo, sun = night.phone(1), night.phone(2)
    assert jo.post("/me/skullking/bid", data={"round": 1, "bid": 2}).status_code == 200
    assert "You bid 2" in text(jo.get("/me"))
    assert "You bid" not in text(sun.get("/me"))
    assert night.pos(game) == 1


def test_a_phone_says_bid_sent_and_keeps_the_number_behind_hold_to_see(app):
    night = make_night(app, SIX)
    start(night, players=range(6), way="custom", rounds="3", first_dealer="4")
    phones = [night.phone(seat) for seat in range(6)]
    for seat in range(4):
        phones[seat].post("/me/skullking/bid", data={"round": 1, "bid": seat % 3})
    for phone in phones:  # every screen counts the bids in, and names dealer and lead
        html = text(phone.get("/me"))
        assert "4 of 6 bids in" in html
        assert "Dealer: Lee" in html and "Leads first: Kim" in html
    mine = text(phones[2].get("/me"))
    assert "Bid sent ✓" in mine
    secret = re.search(r'<div id="sk-my-bid" data-secret hidden>(.*?)</div>', mine, re.S)
    assert "You bid 2" in secret.group(1)
    assert "You bid" not in mine.replace(secret.group(1), "")
    assert 'data-hold="sk-my-bid"' in mine
    # the bid can be changed until "Yo-ho-ho!", and the tap targets never show the old one
    assert "Change your bid" in mine and 'data-action="skullking-my-bid"' in mine
    phones[2].post("/me/skullking/bid", data={"round": 1, "bid": 3})
    assert "You bid 3" in text(phones[2].get("/me"))
    assert "Bid sent" not in text(phones[5].get("/me"))


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_phones_page_weighs_the_same_whatever_its_bid(app, lang, tmp_path):
    """Anyone near the table sees the size of the Wi-Fi frames: the page with the bid
    behind hold-to-see must not tell 0 from 10 or a Cannonball (companion/web/sealed.py).
    (Each bid on its own database, so the pages differ in nothing else.)"""
    weights = set()
    for bid, shot in ((0, "grapeshot"), (10, "cannonball"), (7, "grapeshot")):
        fresh = create_app({**app.config, "DATABASE": str(tmp_path / f"{bid}.sqlite")})
        night = make_night(fresh, SIX)
        start(night, players=range(6), scoring="rascal", way="broadside")
        phone = night.phone(1)
        phone.set_cookie("lang", lang)
        response = phone.post("/me/skullking/bid", data={"round": 1, "bid": bid, "shot": shot})
        assert response.status_code == 200
        weights.add(tuple(len(phone.get(url, headers={"Accept-Encoding": encoding,
                                                      "HX-Request": hx}).data)
                          for url, hx in (("/me", ""), ("/me/live?v=-1", "true"))
                          for encoding in ("gzip", "identity")))
    assert len(weights) == 1, weights


def test_a_stale_phone_form_for_an_earlier_round_is_refused(night):
    game = start(night, way="custom", rounds="1,2")
    bid_round(night, game, {0: 1, 1: 0, 2: 0, 3: 0})
    assert result(night, game, {0: 1, 1: 0, 2: 0, 3: 0}).status_code == 303
    jo = night.phone(1)
    refused(jo.post("/me/skullking/bid", data={"round": 1, "bid": 0}), 422,
            "Round 1 is not the round being bid.")


def _without_noise(html):
    html = re.sub(r'<details class="history">.*?</details>', "", html, flags=re.S)
    html = re.sub(r'name="pos" value="\d+"', "", html)
    html = without_tokens(html)  # signed with the second they were made
    return re.sub(r"\?v=\d+", "", html)


def test_bids_are_hidden_from_the_host_and_other_phones_until_yo_ho_ho(night):
    game = start(night, way="custom", rounds="3")
    jo, sun = night.phone(1), night.phone(2)
    jo.post("/me/skullking/bid", data={"round": 1, "bid": 0})
    host_before, sun_before = text(night.host.get(game)), text(sun.get("/me"))
    jo.post("/me/skullking/bid", data={"round": 1, "bid": 3})  # a new bid replaces it
    host_after, sun_after = text(night.host.get(game)), text(sun.get("/me"))
    # nothing on the tablet or on another phone depends on the value of Jo's bid
    assert _without_noise(host_before) == _without_noise(host_after)
    assert _without_noise(sun_before) == _without_noise(sun_after)
    assert "✓ has bid" in host_after
    assert "sk-bid-value" not in host_after
    history = re.search(r'<details class="history">.*?</details>', host_after, re.S).group(0)
    lines = re.sub(r"<time>.*?</time>", "", history.split("</summary>")[1])
    assert "<bdi>Jo</bdi> bid in round 1" in lines and "3" not in lines
    # after the reveal everyone sees every bid and the total against the cards dealt
    for seat, value in ((0, 1), (2, 0), (3, 1)):
        host_bid(night, game, seat, value)
    assert reveal(night, game).status_code == 303
    html = text(night.host.get(game))
    assert re.findall(r'class="sk-bid-value">(\d+)<', html) == ["1", "3", "0", "1"]
    assert 'data-bid-total="5"' in html
    assert "Bids total 5 for 3 cards dealt" in html
    assert re.search(r"Jo: <strong>3</strong>", unmarked(text(sun.get("/me"))))


def test_the_reveal_shows_bids_and_cannonballs_but_never_a_wager(night):
    game = start(night, way="custom", rounds="3", scoring="rascal", abilities="1")
    for seat in range(4):
        host_bid(night, game, seat, 1, shot="cannonball" if seat == 2 else "grapeshot")
    reveal(night, game)
    html = text(night.host.get(game))
    bids = re.search(r'class="sk-bid-total".*?data-action', html, re.S).group(0)
    assert "Cannonball" in row(html, 2) and "Cannonball" not in row(html, 1)
    assert "wager" not in bids.lower()
    phone = text(night.phone(0).get("/me"))
    assert "wager" not in phone.lower()


def test_the_reveal_waits_for_every_bid(night):
    game = start(night)
    host_bid(night, game, 0, 1)
    host_bid(night, game, 1, 0)
    refused(reveal(night, game), 422, "Not everyone has bid yet (2 to go).")
    assert night.pos(game) == 2


def test_a_bid_for_a_seat_changed_since_the_form_was_made_is_refused(night):
    """Someone else changed that very bid since the tablet's screen was made: the table
    moved on (docs/rules.md#skull-king-decisions)."""
    game = start(night)
    stale = night.pos(game)
    jo = night.phone(1)
    assert jo.post("/me/skullking/bid", data={"round": 1, "bid": 1}).status_code == 200
    response = night.host.post(f"{game}/skullking/bid",
                               data={"round": 1, "seat": 1, "bid": 0, "pos": stale})
    refused(response, 409, "The table moved on")
    assert night.pos(game) == 1


def test_phone_bids_never_make_the_tablets_bid_for_another_seat_stale(night):
    """Five phones bid while the tablet's screen still shows none; its bid for the player
    without a phone, from that screen, is recorded."""
    game = start(night, players=range(5))
    screen = night.pos(game)
    for seat in range(4):
        phone = night.phone(seat)
        assert phone.post("/me/skullking/bid", data={"round": 1, "bid": 0}).status_code == 200
    response = night.host.post(f"{game}/skullking/bid",
                               data={"round": 1, "seat": 4, "bid": 1, "pos": screen})
    assert response.status_code == 303, text(response)[:500]
    assert night.pos(game) == 5
    assert "5 of 5 bids in" in text(night.host.get(game))


def test_yo_ho_ho_right_after_a_late_phone_bid_reveals_it(night):
    """The last player bids (and changes it) just before the host's screen refreshes: the
    host's "Yo-ho-ho!" from the older screen reveals the bids that are in."""
    game = start(night, way="custom", rounds="3")
    for seat in (0, 1, 2):
        host_bid(night, game, seat, 1)
    screen = night.pos(game)
    ann = night.phone(3)
    ann.post("/me/skullking/bid", data={"round": 1, "bid": 2})
    ann.post("/me/skullking/bid", data={"round": 1, "bid": 0})
    response = night.host.post(f"{game}/skullking/reveal", data={"round": 1, "pos": screen})
    assert response.status_code == 303, text(response)[:500]
    html = text(night.host.get(game))
    assert re.findall(r'class="sk-bid-value">(\d+)<', html) == ["1", "1", "1", "0"]


def test_yo_ho_ho_from_a_screen_before_an_undo_is_stale(night):
    game = start(night)
    for seat in range(4):
        host_bid(night, game, seat, 0)
    screen = night.pos(game)
    assert night.host.post(f"{game}/undo", data={"pos": screen}).status_code == 303
    host_bid(night, game, 3, 1)
    refused(night.host.post(f"{game}/skullking/reveal", data={"round": 1, "pos": screen}),
            409, "The table moved on")


def test_yo_ho_ho_with_a_bid_missing_is_refused_beside_the_button(night):
    game = start(night)
    for seat in range(3):
        host_bid(night, game, seat, 0)
    response = night.host.post(f"{game}/skullking/reveal",
                               data={"round": 1, "pos": night.pos(game)},
                               headers={"HX-Request": "true"})
    assert status_of(response) == 422
    bar = re.search(r'<form[^>]*data-action="skullking-reveal".*?</form>', text(response), re.S)
    assert "Not everyone has bid yet (1 to go)." in bar.group(0)


def test_a_passed_tablet_shows_the_player_no_phone_forms(night):
    start(night)
    html = text(night.host.post(f"{night.url}/pass/1"))
    assert "sk-my-bid-form" not in html
    assert "Tell the host your bid" in html


# --------------------------------------------------------------------------- results


@pytest.mark.parametrize("won, extra, words", [
    ({0: 1, 1: 1, 2: 0, 3: 0}, {}, "The tricks won add up to 2, not 3."),
    ({0: 4, 1: 0, 2: 0, 3: 0}, {}, "Tricks won must be between 0 and 3."),
    ({0: 1, 1: 1, 2: 1, 3: 0}, {"fourteens-0": 2, "fourteens-1": 2},
     "There are only 3 standard 14s."),
    ({0: 1, 1: 1, 2: 1, 3: 0}, {"black_fourteen-0": 1, "black_fourteen-1": 1},
     "There is only one black 14."),
    ({0: 1, 1: 1, 2: 1, 3: 0}, {"mermaids_by_pirate-0": 2, "skull_king_by_mermaid-1": 1},
     "There are only 2 Mermaids."),
    ({0: 1, 1: 1, 2: 1, 3: 0}, {"pirates_by_skull_king-0": 1, "pirates_by_skull_king-1": 1},
     "Only one player can capture with the one Skull King."),
    ({0: 1, 1: 1, 2: 1, 3: 0}, {"mermaids_by_pirate-3": 1}, "A capture bonus needs a trick won."),
    ({0: 1, 1: 1, 2: 1}, {}, "A number is missing"),
    ({0: 1, 1: 1, 2: 1, 3: "lots"}, {}, "“lots” is not a whole number."),
    ({0: 1, 1: 1, 2: 1, 3: 0}, {"fourteens-2": "1.5"}, "“1.5” is not a whole number."),
])
def test_the_results_editor_refuses_what_cannot_happen(night, won, extra, words):
    game = start(night, way="custom", rounds="3")
    bid_round(night, game, {0: 1, 1: 1, 2: 1, 3: 0})
    pos = night.pos(game)
    response = result(night, game, won, **extra)
    refused(response, 422, words)
    assert night.pos(game) == pos
    # the refusal is beside the score button, and what the host typed is still there
    assert re.search(r'class="sk-refusal" role="alert">[^<]*' + re.escape(words),
                     text(response).replace("&#39;", "'"))
    if isinstance(won[0], int) and won[0] <= 3:
        assert checked(text(response), "won-0") == str(won[0])


def checked(html, name):
    """The value of the checked radio button ``name`` (a tap target), or None."""
    m = re.search(rf'name="{name}" value="([^"]*)"[^>]*\bchecked\b', html)
    return m and m.group(1)


def row(html, seat):
    """One player's row of the round's editor."""
    m = re.search(rf'<div class="sk-row sk-trick-row[^"]*" data-seat="{seat}">.*?'
                  rf'(?=<div class="sk-row sk-trick-row|</div>\s*<div class="sk-actionbar")',
                  html, re.S)
    assert m, f"no row for seat {seat}"
    return m.group(0)


def test_the_tricks_are_preset_to_each_bid_so_everyone_made_it_is_one_tap(night):
    game = start(night, way="custom", rounds="3")
    bid_round(night, game, {0: 2, 1: 0, 2: 1, 3: 0})
    html = text(night.host.get(game))
    assert [checked(html, f"won-{seat}") for seat in range(4)] == ["2", "0", "1", "0"]
    # the form as it stands is the round scored: every bid made
    response = night.host.post(f"{game}/skullking/result", data={
        "round": 1, "pos": night.pos(game), "won-0": 2, "won-1": 0, "won-2": 1, "won-3": 0})
    assert response.status_code == 303
    assert [cell(text(night.host.get(game)), 1, s)[0] for s in range(4)] == [40, 30, 20, 30]


def test_a_refusal_is_shown_at_the_row_at_fault(night):
    game = start(night, way="custom", rounds="3")
    bid_round(night, game, {0: 1, 1: 1, 2: 1, 3: 0})
    response = result(night, game, {0: 1, 1: 1, 2: 1, 3: 0}, **{"mermaids_by_pirate-3": 1})
    html = text(response)
    assert response.status_code == 422
    assert "A capture bonus needs a trick won." in row(html, 3)
    assert re.search(r'class="sk-row sk-trick-row pc-\w+ fault" data-seat="3"', html)
    # its "+ bonus" panel is open, with the count the host entered
    assert re.search(r'id="sk-more-3" name="more-3" value="1" checked', html)
    assert re.search(r'name="mermaids_by_pirate-3"[^>]*\s+value="1"', html)
    assert "A capture bonus" not in row(html, 2)


def test_the_kraken_discards_at_most_one_trick(night):
    game = start(night, way="custom", rounds="3", kraken="1")
    bid_round(night, game, {0: 1, 1: 1, 2: 1, 3: 0})
    refused(result(night, game, {0: 1, 1: 0, 2: 0, 3: 0}, discarded=2), 422,
            "Too many discarded tricks: at most 1.")
    assert result(night, game, {0: 1, 1: 1, 2: 0, 3: 0}, discarded=1).status_code == 303


# --------------------------------------------------------------------------- Loot


def test_a_loot_is_entered_as_a_pair_and_pays_both_when_both_bid_exactly(night):
    """Jo played a Loot and Mina captured it: ``loot-<player>-<captor>`` in Mina's
    "+ bonus" panel; both bid exactly, so each gets +20 (docs/rules.md#skull-king-2021)."""
    game = start(night, way="custom", rounds="2", loot="1")
    bid_round(night, game, {0: 1, 1: 1, 2: 0, 3: 0})
    html = text(night.host.get(game))
    assert 'name="loot-1-0"' in row(html, 0) and 'name="loot-0-0"' not in html
    assert result(night, game, {0: 1, 1: 1, 2: 0, 3: 0}, **{"loot-1-0": 1}).status_code == 303
    html = text(night.host.get(game))
    assert [cell(html, 1, s)[0] for s in range(4)] == [40, 40, 20, 20]


def test_a_loot_pays_nothing_when_one_of_the_pair_missed(night):
    """A Loot player who bid 0 and took none, with a captor who bid 2 and took 1: 30, not
    50; the captor's missed bid pays nothing either."""
    game = start(night, way="custom", rounds="3", loot="1")
    bid_round(night, game, {0: 0, 1: 2, 2: 1, 3: 0})
    response = result(night, game, {0: 0, 1: 1, 2: 2, 3: 0}, **{"loot-0-1": 1})
    assert response.status_code == 303
    html = text(night.host.get(game))
    assert [cell(html, 1, s)[0] for s in range(4)] == [30, -10, -10, 30]


def test_a_loot_captured_by_its_own_player_pays_nothing(night):
    game = start(night, way="custom", rounds="2", loot="1")
    bid_round(night, game, {0: 1, 1: 1, 2: 0, 3: 0})
    assert result(night, game, {0: 1, 1: 1, 2: 0, 3: 0}, **{"loot-0-0": 1}).status_code == 303
    assert [cell(text(night.host.get(game)), 1, s)[0] for s in range(4)] == [20, 20, 20, 20]


@pytest.mark.parametrize("options, fields, words, seat", [
    ({"loot": "1"}, {"loot-1-0": 3}, "There are only 2 Loot cards.", 0),
    ({"loot": "1"}, {"loot-1-0": 1, "loot-2-0": 1, "loot-3-1": 1},
     "There are only 2 Loot cards.", None),
    ({"loot": "1"}, {"loot-0-2": 1}, "this player won no trick", 2),
    ({"loot": "1"}, {"loot-9-0": 1}, "", None),  # a seat not at the table: no such field
    ({}, {"loot-1-0": 1}, "Loot is not in play.", None),
])
def test_a_bad_loot_pair_is_refused_with_its_reason(night, options, fields, words, seat):
    game = start(night, way="custom", rounds="2", **options)
    bid_round(night, game, {0: 1, 1: 1, 2: 0, 3: 0})
    pos = night.pos(game)
    response = result(night, game, {0: 1, 1: 1, 2: 0, 3: 0}, **fields)
    if not words:
        assert response.status_code == 303  # the form has no such field: nothing to pay
        return
    refused(response, 422, words)
    assert night.pos(game) == pos
    if seat is not None:
        assert words in row(text(response), seat)


# --------------------------------------------------------------------------- wagers


def test_the_rascal_of_roatans_wager_is_entered_with_the_results(night):
    game = start(night, way="custom", rounds="2", abilities="1")
    bid_round(night, game, {0: 1, 1: 1, 2: 0, 3: 0})
    html = text(night.host.get(game))
    assert "wager" not in re.search(r'class="sk-bid-total".*?</p>', html, re.S).group(0)
    assert 'name="wager-2"' in row(html, 2)
    response = result(night, game, {0: 1, 1: 1, 2: 0, 3: 0}, **{"wager-0": 20})
    assert response.status_code == 303, text(response)[:500]
    assert cell(text(night.host.get(game)), 1, 0)[0] == 40  # 20 + a won wager of 20


def test_a_wager_sent_with_a_bid_is_refused_and_nothing_is_recorded(night):
    """A wager is declared when the Rascal is played: with the bid it would be shown at
    "Yo-ho-ho!", telling the table who holds the card."""
    game = start(night, way="custom", rounds="2", abilities="1")
    jo = night.phone(1)
    refused(jo.post("/me/skullking/bid", data={"round": 1, "bid": 1, "wager": 20}), 422,
            "entered with the round's results")
    refused(host_bid(night, game, 0, 1, wager=10), 422, "entered with the round's results")
    assert night.pos(game) == 0
    assert 'name="wager' not in text(jo.get("/me"))


@pytest.mark.parametrize("options, fields, words, seat", [
    ({"abilities": "1"}, {"wager-0": 0, "wager-1": 20}, "Only one player can wager", 1),
    ({"abilities": "1"}, {"wager-0": 15}, "A wager is 0, 10 or 20.", 0),
    ({}, {"wager-2": 10}, "A wager needs the pirate abilities.", 2),
    ({"edition": "classic"}, {"wager-2": 0}, "A wager needs the pirate abilities.", 2),
])
def test_a_wager_where_none_is_possible_is_refused_never_dropped(night, options, fields,
                                                                  words, seat):
    game = start(night, way="custom", rounds="2", **options)
    bid_round(night, game, {0: 1, 1: 1, 2: 0, 3: 0})
    pos = night.pos(game)
    response = result(night, game, {0: 1, 1: 1, 2: 0, 3: 0}, **fields)
    refused(response, 422, words)
    assert night.pos(game) == pos
    if options:
        assert words in row(text(response), seat)


def test_the_capture_labels_say_how_scary_mary_and_the_tigress_count(app):
    night = make_night(app)
    classic = start(night, edition="classic", way="custom", rounds="2")
    bid_round(night, classic, {0: 1, 1: 1, 2: 0, 3: 0})
    html = text(night.host.get(classic))
    assert "Scary Mary counts as a Pirate, even when played as an Escape." in html
    assert "Tigress" not in html
    night = make_night(app)
    modern = start(night, way="custom", rounds="2")
    bid_round(night, modern, {0: 1, 1: 1, 2: 0, 3: 0})
    html = text(night.host.get(modern)).replace("&#39;", "'")
    assert "The Tigress counts only when played as a Pirate; as an Escape she earns no bonus." \
        in html
    assert "Scary Mary" not in html


def test_results_before_the_reveal_are_refused(night):
    game = start(night)
    refused(result(night, game, {0: 1, 1: 0, 2: 0, 3: 0}), 422,
            "Reveal the bids before recording the tricks.")


def test_a_round_scored_through_the_routes(night):
    """2021, 3 cards: Mina bid 1 took 1 with the black 14 (20 + 20), Jo bid 0 took 0
    (+30), Sun bid 2 took 2 and a Mermaid with a Pirate (40 + 20), Ann bid 0 took 0 (+30)."""
    game = start(night, way="custom", rounds="3,3")
    jo = night.phone(1)
    jo.post("/me/skullking/bid", data={"round": 1, "bid": 0})
    for seat, value in ((0, 1), (2, 2), (3, 0)):
        host_bid(night, game, seat, value)
    reveal(night, game)
    response = result(night, game, {0: 1, 1: 0, 2: 2, 3: 0},
                      **{"black_fourteen-0": 1, "mermaids_by_pirate-2": 1})
    assert response.status_code == 303
    html = text(night.host.get(game))
    assert [cell(html, 1, s) for s in range(4)] == [(40, 40), (30, 30), (60, 60), (30, 30)]
    assert totals(html) == {0: 40, 1: 30, 2: 60, 3: 30}
    assert ranks(html) == {2: 1, 0: 2, 1: 3, 3: 3}
    assert "Round 2 of 2" in html
    assert "<svg" in html and html.count("<polyline") == 4
    phone = text(jo.get("/me"))
    assert 'data-my-total>30<' in phone and 'data-my-rank>3<' in phone
    assert 'data-my-points>+30<' in phone


def test_the_htmx_answer_is_the_live_fragment(night):
    game = start(night)
    response = night.host.post(f"{game}/skullking/bid",
                               data={"round": 1, "seat": 0, "bid": 1, "pos": 0},
                               headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert text(response).startswith('<div id="live"')


def test_correcting_round_1_recomputes_every_later_total(night):
    game = start(night, way="custom", rounds="1,2")
    bid_round(night, game, {0: 1, 1: 0, 2: 0, 3: 0})
    result(night, game, {0: 1, 1: 0, 2: 0, 3: 0})          # 20, 10, 10, 10
    bid_round(night, game, {0: 1, 1: 1, 2: 0, 3: 0}, round_=2)
    result(night, game, {0: 1, 1: 1, 2: 0, 3: 0}, round_=2)  # 20, 20, 20, 20
    assert totals(text(night.host.get(game))) == {0: 40, 1: 30, 2: 30, 3: 30}

    form = text(night.host.get(f"{game}/skullking/correct/1"))
    assert 'name="bid-0" value="2"' not in form  # 1 card: bids 0 and 1
    assert checked(form, "bid-0") == "1" and checked(form, "won-0") == "1"
    # really: Jo bid 1 and took the trick; Mina bid 1 and took nothing
    response = night.host.post(f"{game}/skullking/correct/1", data={
        "pos": night.pos(game), "bid-0": 1, "bid-1": 1, "bid-2": 0, "bid-3": 0,
        "won-0": 0, "won-1": 1, "won-2": 0, "won-3": 0})
    assert response.status_code == 303
    html = text(night.host.get(game))
    assert [cell(html, 1, s) for s in range(4)] == [(-10, -10), (20, 20), (10, 10), (10, 10)]
    assert [cell(html, 2, s) for s in range(4)] == [(20, 10), (20, 40), (20, 30), (20, 30)]
    assert "Round 1 corrected" in html


def test_a_correction_the_rules_refuse_keeps_the_form_and_records_nothing(night):
    game = start(night, way="custom", rounds="1,1")
    bid_round(night, game, {0: 1, 1: 0, 2: 0, 3: 0})
    result(night, game, {0: 1, 1: 0, 2: 0, 3: 0})
    pos = night.pos(game)
    url = f"{game}/skullking/correct/1"
    response = night.host.post(url, data={"pos": pos, "bid-0": 1, "bid-1": 0, "bid-2": 0,
                                          "bid-3": 0, "won-0": 1, "won-1": 1, "won-2": 0,
                                          "won-3": 0})
    refused(response, 422, "The tricks won add up to 2, not 1.")
    assert checked(text(response), "won-1") == "1"
    refused(night.host.post(url, data={"pos": pos, "bid-0": "x"}), 422, "not a whole number")
    refused(night.host.post(url, data={"pos": pos - 1, "bid-0": 1, "bid-1": 0, "bid-2": 0,
                                       "bid-3": 0, "won-0": 1, "won-1": 0, "won-2": 0,
                                       "won-3": 0}), 409, "The table moved on")
    refused(night.host.post(url, data={"bid-0": 1}), 422, "This form is out of date")
    # a stale save keeps what the host entered, to check and save again
    response = night.host.post(url, data={"pos": pos - 1, "bid-0": 1, "bid-1": 0, "bid-2": 0,
                                          "bid-3": 0, "won-0": 0, "won-1": 1, "won-2": 0,
                                          "won-3": 0})
    assert response.status_code == 409 and checked(text(response), "won-1") == "1"
    assert night.pos(game) == pos
    assert night.host.get(f"{game}/skullking/correct/2").status_code == 404


def test_only_the_host_reaches_the_game_actions(night):
    game = start(night)
    jo = night.phone(1)
    assert jo.post(f"{game}/skullking/reveal", data={"round": 1}).status_code == 404
    assert jo.get(f"{game}/skullking/correct/1").status_code == 404


def test_the_rules_summary_page(client):
    html = text(client.get("/rules/skullking"))
    assert "+20 per trick" in html and "Yo-ho-ho" in html


# --------------------------------------------------------------------------- whole games


def _play(night, game, phones, rounds, plan):
    """Play every round: phones bid, the host reveals and enters the results.
    ``plan(cards) -> (bids, bid extras, won, result extras)``."""
    for number, cards in enumerate(rounds, start=1):
        bids, bid_extra, won, extra = plan(cards)
        for seat, value in bids.items():
            response = phones[seat].post("/me/skullking/bid", data={
                "round": number, "bid": value, **bid_extra.get(seat, {})})
            assert response.status_code == 200, text(response)[:300]
        assert reveal(night, game, number).status_code == 303
        response = result(night, game, won, number, **extra)
        assert response.status_code == 303, text(response)


def test_a_whole_classic_game_for_six_matches_a_hand_calculation(app):
    """Mina bids and takes every trick (20 × r), from round 2 with one Pirate taken by her
    Skull King (+30); Jo bids 0 and takes none (+10 × r); the others bid 1 and take none
    (−10 each round)."""
    night = make_night(app, SIX)
    game = start(night, players=range(6), edition="classic")
    phones = {seat: night.phone(seat) for seat in range(6)}

    def plan(cards):
        bids = {0: cards, 1: 0, **{s: 1 for s in range(2, 6)}}
        won = {0: cards, **{s: 0 for s in range(1, 6)}}
        extra = {"pirates_by_skull_king-0": 1} if cards > 1 else {}
        return bids, {}, won, extra

    _play(night, game, phones, range(1, 11), plan)
    html = text(night.host.get(game))
    expected = {0: 20 * 55 + 30 * 9, 1: 10 * 55, 2: -100, 3: -100, 4: -100, 5: -100}
    assert totals(html) == expected == {0: 1370, 1: 550, 2: -100, 3: -100, 4: -100, 5: -100}
    assert ranks(html) == {0: 1, 1: 2, 2: 3, 3: 3, 4: 3, 5: 3}
    assert "Game over" in html and "Winner: <bdi>Mina</bdi>" in html
    assert cell(html, 10, 0) == (230, 1370)
    assert 'data-my-total>-100<' in text(phones[4].get("/me"))


def test_a_whole_2021_game_with_rascals_scoring_matches_a_hand_calculation(app):
    """Rascal's scoring, 10 × r at stake: Mina hits with a standard 14 (10r + 10), Jo bids
    0 and hits (10r), Sun is off by one (5r), Ann fires a Cannonball on 0 and hits (15r),
    Lee's Cannonball on 1 misses (0), Kim is off by one with Grapeshot (5r)."""
    night = make_night(app, SIX)
    game = start(night, players=range(6), scoring="rascal")
    phones = {seat: night.phone(seat) for seat in range(6)}

    def plan(cards):
        bids = {0: cards, 1: 0, 2: 1, 3: 0, 4: 1, 5: 1}
        shots = {3: {"shot": "cannonball"}, 4: {"shot": "cannonball"},
                 5: {"shot": "grapeshot"}}
        won = {0: cards, **{s: 0 for s in range(1, 6)}}
        return bids, shots, won, {"fourteens-0": 1}

    _play(night, game, phones, range(1, 11), plan)
    html = text(night.host.get(game))
    assert totals(html) == {0: 650, 1: 550, 2: 275, 3: 825, 4: 0, 5: 275}
    assert ranks(html) == {3: 1, 0: 2, 1: 3, 2: 4, 5: 4, 4: 6}
    assert cell(html, 4, 3) == (60, 150)


def test_a_bid_changes_at_most_twenty_times_a_round_so_no_phone_floods_the_log(app):
    """docs/rules.md#skull-king-decisions: the log stays within what an export carries."""
    from companion.skullking import rules as sk_rules

    night = make_night(app, ["Ann", "Bo", "Cy"])
    night.start("skullking", seat0="on", seat1="on", seat2="on", way="swift_n_salty")
    phone = night.phone(1)
    answers = [phone.post("/me/skullking/bid", data={"round": 1, "bid": n % 2}).status_code
               for n in range(sk_rules.MOST_BIDS + 2)]
    assert answers == [200] * sk_rules.MOST_BIDS + [422, 422]
    refused = phone.post("/me/skullking/bid", data={"round": 1, "bid": 1},
                         headers={"Accept-Language": "en"})
    assert "at most 20 times a round" in refused.get_data(as_text=True)


# --- the box in the table's hands ---------------------------------------------------


def checked_box(html):
    return re.search(r'name="edition" value="(\w+)" checked', html).group(1)


def test_a_new_device_is_asked_with_the_seeds_classic_box_first(night):
    html = text(night.host.get(f"{night.url}/new/skullking"))
    assert checked_box(html) == "classic"
    assert html.index('value="classic"') < html.index('value="2021"')
    assert "Which box does your table have?" in html


def test_the_box_is_remembered_on_the_device_that_started_the_game(night):
    start(night, edition="2021")
    assert checked_box(text(night.host.get(f"{night.url}/new/skullking"))) == "2021"
    start(night, edition="classic")
    assert checked_box(text(night.host.get(f"{night.url}/new/skullking"))) == "classic"


def test_a_refused_start_remembers_nothing(night):
    response = night.host.post(f"{night.url}/new/skullking",
                               data={"seat0": "1", "seat1": "1", "edition": "2021",
                                     "way": "custom", "rounds": "x"})
    assert response.status_code == 422
    assert checked_box(text(night.host.get(f"{night.url}/new/skullking"))) == "classic"


def test_a_forged_box_cookie_falls_back_to_the_classic_box(night):
    night.host.set_cookie("skullking_box", "1999")
    assert checked_box(text(night.host.get(f"{night.url}/new/skullking"))) == "classic"


def test_the_round_header_names_the_box(night):
    game = start(night, edition="classic")
    classic = text(night.host.get(game))
    assert 'data-box="classic"' in classic and "Classic box" in classic
    later = start(night, edition="2021")
    html = text(night.host.get(later))
    assert 'data-box="2021"' in html and "2021 box" in html


def test_a_classic_rounds_results_ask_about_cards_the_box_lacks(night):
    classic = start(night, edition="classic")
    bid_round(night, classic, {0: 1, 1: 0, 2: 0, 3: 0})
    assert "A 14, a Loot, the Kraken or the White Whale came up?" in text(
        night.host.get(classic))
    modern = start(night, edition="2021")
    bid_round(night, modern, {0: 1, 1: 0, 2: 0, 3: 0})
    assert "came up?" not in text(night.host.get(modern))


def test_a_classic_game_offers_the_same_players_again_in_the_2021_edition(night):
    game = start(night, players=(0, 2, 3), edition="classic")
    bid_round(night, game, {0: 0, 2: 0, 3: 0})
    html = text(night.host.get(game))
    link = re.search(r'href="([^"]*/new/skullking\?[^"]*)"', html).group(1).replace("&amp;", "&")
    form = text(night.host.get(link))
    assert checked_box(form) == "2021"
    ticked = re.findall(r'name="seat(\d)" value="1"\s*checked', form)
    assert ticked == ["0", "2", "3"]


def test_a_fourteen_in_a_classic_game_asks_about_the_box(night):
    game = start(night, edition="classic")
    bid_round(night, game, {0: 1, 1: 0, 2: 0, 3: 0})
    response = result(night, game, {0: 1, 1: 0, 2: 0, 3: 0}, **{"fourteens-0": 1})
    assert response.status_code == 422
    assert "your table has the 2021 edition" in text(response)


def test_a_player_s_card_heads_its_table_with_a_row_not_a_thead(night):
    """(Chromium keeps a media query set for every <thead> it styled, gone or not: a
    phone that draws five cards anew at every bid grew by 2.3 KB a round,
    bench/phone_memory.py --snapshots)"""
    phone = night.phone(0)
    game = start(night)
    host_bid(night, game, 1, 0)
    html = phone.get("/me/live", headers={"HX-Request": "true"}).data.decode()
    cards = re.findall(r'<section class="sk-player-card[^>]*>.*?</table>', html, re.S)
    assert cards  # (a card has its table once its player has bid)
    for card in cards:
        assert "<thead" not in card and "<tfoot" not in card
        assert '<tr class="sk-mini-head"><th scope="col">Round</th>' in card
