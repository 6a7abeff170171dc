"""Skull King through the real routes (docs/rules.md#skull-king): starting a game, bids
from the tablet and from phones kept secret until "Yo-ho-ho!", the results editor and
every refusal it shows, the score table, and correcting an earlier round."""

import re

import pytest

from tests.conftest import make_night

SIX = ["Mina", "Jo", "Sun", "Ann", "Lee", "Kim"]


def start(night, players=(0, 1, 2, 3), **form):
    data = {f"seat{p}": "1" for p in players}
    data.update(form)
    return night.start("skullking", **data)


def host_bid(night, game, seat, bid, round_=1, **extra):
    return night.host.post(f"{game}/skullking/bid", data={
        "round": round_, "seat": seat, "bid": bid, "pos": night.pos(game), **extra})


def reveal(night, game, round_=1):
    return night.host.post(f"{game}/skullking/reveal",
                           data={"round": round_, "pos": night.pos(game)})


def result(night, game, won, round_=1, **extra):
    data = {"round": round_, "pos": night.pos(game)}
    data.update({f"won-{seat}": value for seat, value in won.items()})
    data.update(extra)
    return night.host.post(f"{game}/skullking/result", data=data)


def bid_round(night, game, bids, round_=1):
    for seat, value in bids.items():
        assert host_bid(night, game, seat, value, round_).status_code == 303
    assert reveal(night, game, round_).status_code == 303


def text(response):
    return response.data.decode()


def cell(html, round_, seat):
    """(points, total) of one score-table cell."""
    m = re.search(rf'data-round="{round_}" data-seat="{seat}" data-points="(-?\d+)" '
                  rf'data-total="(-?\d+)"', html)
    assert m, f"round {round_} seat {seat} is not scored"
    return int(m.group(1)), int(m.group(2))


def totals(html):
    return {int(s): int(t) for s, t in
            re.findall(r'class="sk-rank[^"]*" data-seat="(\d+)" data-rank="\d+" '
                       r'data-total="(-?\d+)"', html)}


def ranks(html):
    return {int(s): int(r) for s, r in
            re.findall(r'class="sk-rank[^"]*" data-seat="(\d+)" data-rank="(\d+)"', html)}


def refused(response, status, words):
    body = text(response)
    assert response.status_code == status, body[:500]
    assert words in body.replace("&#39;", "'").replace("&quot;", '"'), body[:3000]


# --------------------------------------------------------------------------- starting


def test_the_start_form_offers_both_editions_every_way_and_the_options(night):
    html = text(night.host.get(f"{night.url}/new/skullking"))
    for words in ("Classic edition", "2021 edition", "Rascal", "Skip to the Brawl",
                  "Swift-n-Salty", "Broadside", "Whirlpool", "Past Your Bedtime",
                  "Even Keeled", "Custom", "Loot", "Kraken", "White Whale", "First dealer"):
        assert words in html
    assert html.count('type="checkbox" name="seat') == 5


def test_a_custom_sequence_and_the_first_dealer_come_from_the_form(night):
    game = start(night, players=(0, 2, 4), way="custom", rounds="1, 2,3", first_dealer="2")
    html = text(night.host.get(game))
    assert "Round 1 of 3" in html
    # dealer Sun (seat 2), the next player in this game (Ann is not playing: 박서준) leads
    assert re.search(r"Dealer</dt><dd>지혜 🙂</dd>", html)
    assert re.search(r"Leads first</dt><dd>박서준</dd>", html)


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
    assert re.search(r'data-cards>1</dd>', html)
    assert "Dealer</dt><dd>Jo</dd>" in html
    assert "Leads first</dt><dd>지혜 🙂</dd>" in html


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
    # CSRF tokens are signed with the second they were made
    html = re.sub(r'"X-CSRFToken": "[^"]+"|name="csrf_token" value="[^"]+"', "", html)
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
    assert "Jo bid in round 1" in lines and "3" not in lines
    # after the reveal everyone sees every bid and the total against the cards dealt
    for seat, value in ((0, 1), (2, 0), (3, 1)):
        host_bid(night, game, seat, value)
    assert reveal(night, game).status_code == 303
    html = text(night.host.get(game))
    assert re.findall(r'class="sk-bid-value">(\d+)<', html) == ["1", "3", "0", "1"]
    assert 'data-bid-total="5"' in html
    assert "Bids total 5 for 3 cards dealt" in html
    assert re.search(r"Jo: <strong>3</strong>", text(sun.get("/me")))


def test_the_reveal_waits_for_every_bid(night):
    game = start(night)
    host_bid(night, game, 0, 1)
    host_bid(night, game, 1, 0)
    refused(reveal(night, game), 422, "Not everyone has bid yet (2 to go).")
    assert night.pos(game) == 2


def test_a_stale_form_is_refused_with_the_latest_table(night):
    game = start(night)
    stale = night.pos(game)
    host_bid(night, game, 0, 1)
    response = night.host.post(f"{game}/skullking/bid",
                               data={"round": 1, "seat": 1, "bid": 0, "pos": stale})
    refused(response, 409, "The table moved on")
    assert night.pos(game) == 1


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
    # what the host typed is still in the editor
    assert f'name="won-0" min="0" max="3" step="1" inputmode="numeric" required\n' \
           f'                 value="{won[0]}"' in text(response)


def test_the_kraken_discards_at_most_one_trick(night):
    game = start(night, way="custom", rounds="3", kraken="1")
    bid_round(night, game, {0: 1, 1: 1, 2: 1, 3: 0})
    refused(result(night, game, {0: 1, 1: 0, 2: 0, 3: 0}, discarded=2), 422,
            "Too many discarded tricks: at most 1.")
    assert result(night, game, {0: 1, 1: 1, 2: 0, 3: 0}, discarded=1).status_code == 303


def test_loot_counts_only_when_both_bid_exactly(night):
    game = start(night, way="custom", rounds="2", loot="1")
    bid_round(night, game, {0: 1, 1: 1, 2: 0, 3: 0})
    refused(result(night, game, {0: 1, 1: 1, 2: 0, 3: 0}, **{"loot-0": 3}), 422,
            "There are only 2 Loot cards.")
    result(night, game, {0: 1, 1: 1, 2: 0, 3: 0}, **{"loot-0": 1, "loot-1": 1})
    html = text(night.host.get(game))
    assert [cell(html, 1, s)[0] for s in range(4)] == [40, 40, 20, 20]


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
    assert 'name="bid-0" min="0" max="1"' in form
    assert re.search(r'name="bid-0"[^>]*value="1"', form)
    assert re.search(r'name="won-0"[^>]*\n?[^>]*value="1"', form)
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
    assert re.search(r'name="won-1"[^>]*\n?[^>]*value="1"', text(response))
    refused(night.host.post(url, data={"pos": pos, "bid-0": "x"}), 422, "not a whole number")
    refused(night.host.post(url, data={"pos": pos - 1, "bid-0": 1, "bid-1": 0, "bid-2": 0,
                                       "bid-3": 0, "won-0": 1, "won-1": 0, "won-2": 0,
                                       "won-3": 0}), 409, "The table moved on")
    refused(night.host.post(url, data={"bid-0": 1}), 422, "This form is out of date")
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
    assert "Game over" in html and "Winner: Mina" in html
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
