"""Skull King's house rules through the real forms (docs/rules.md#skull-king-house-rules):
chosen on the start form, both off by default; "bonuses count on a missed bid" changes
what a missed bid with a bonus scores; "adjustments" are events the host records, undoes,
sees in the history, the export and the tally, and that an import checks again. Bad input
is refused with a sentence and nothing is recorded."""

import json

import pytest

from companion.core import exchange, registry
from tests.skullking_host import bid_round, cell, refused, result, start, text, totals


def undo(night, game):
    return night.host.post(f"{game}/undo", data={"pos": night.pos(game)})


def adjust(night, game, seat, amount, reason, round_=1, htmx=False):
    headers = {"HX-Request": "true"} if htmx else {}
    return night.host.post(f"{game}/skullking/adjust", headers=headers, data={
        "form": "adjust", "adjust-round": round_, "adjust-seat": seat, "amount": amount,
        "reason": reason, "pos": night.pos(game)})


def missed_with_a_bonus(night, game):
    """Round 1 of custom rounds of 2 cards: seat 0 bids 2 and takes 1 trick, in which
    their Skull King took a Pirate; seat 1 (Jo) bids 0 and takes 1; seat 2 bids 0 and
    takes none."""
    bid_round(night, game, {0: 2, 1: 0, 2: 0})
    return result(night, game, {0: 1, 1: 1, 2: 0}, **{"pirates_by_skull_king-0": "1"})


def test_the_start_form_offers_both_house_rules_off(night):
    html = text(night.host.get(f"{night.url}/new/skullking"))
    assert 'name="missed_bonuses" value="1" aria-describedby="sk-missed-help" >' in html
    assert 'name="adjustments" value="1" aria-describedby="sk-adjust-help" >' in html
    assert "Bonuses count on a missed bid" in html and "Adjustments" in html


def test_without_the_house_rule_a_missed_bid_earns_no_bonus(night):
    game = start(night, players=(0, 1, 2), way="custom", rounds="2,2")
    assert missed_with_a_bonus(night, game).status_code == 303
    html = text(night.host.get(game))
    assert cell(html, 1, 0) == (-10, -10)  # missed by 1, the +30 not paid
    assert "data-house-rules" not in html
    assert "skullking/adjust" not in html  # no adjustment form without the house rule


def test_with_the_house_rule_the_bonus_counts_on_a_missed_bid(night):
    game = start(night, players=(0, 1, 2), way="custom", rounds="2,2", missed_bonuses="1")
    assert missed_with_a_bonus(night, game).status_code == 303
    html = text(night.host.get(game))
    assert cell(html, 1, 0) == (20, 20)  # −10 for the miss + 30 for the Pirate
    assert cell(html, 1, 1) == (-20, -20)  # Jo's missed 0 has no bonus to keep
    assert cell(html, 1, 2) == (20, 20)
    # Shown on the round screen (and its standings), in the history, on the phones.
    assert 'data-house-rules="missed_bonuses"' in html
    assert html.count("Bonuses count on a missed bid") >= 3
    phone = night.phone(0)
    assert "Bonuses count on a missed bid" in text(phone.get("/me"))
    # Undone, the round is unscored again; scored again, the same points.
    assert undo(night, game).status_code == 303
    html = text(night.host.get(game))
    assert 'data-points=' not in html
    assert result(night, game, {0: 1, 1: 1, 2: 0},
                  **{"pirates_by_skull_king-0": "1"}).status_code == 303
    assert cell(text(night.host.get(game)), 1, 0) == (20, 20)


def test_the_house_rule_with_rascals_scoring_is_refused_and_nothing_starts(night):
    response = night.host.post(f"{night.url}/new/skullking", data={
        "seat0": "1", "seat1": "1", "seat2": "1", "scoring": "rascal",
        "missed_bonuses": "1"})
    refused(response, 422, "is a house rule of Skull King scoring")
    assert night.host.get(f"{night.url}/g/1").status_code == 404


def adjusted_game(night):
    game = start(night, players=(0, 1, 2), way="custom", rounds="2,2", adjustments="1")
    bid_round(night, game, {0: 1, 1: 0, 2: 1})
    assert result(night, game, {0: 1, 1: 0, 2: 1}).status_code == 303  # 20, 20, 20
    return game


def test_an_adjustment_moves_the_round_and_every_total_and_undo_takes_it_back(night):
    game = adjusted_game(night)
    html = text(night.host.get(game))
    assert 'data-house-rules="adjustments"' in html
    assert 'data-action="skullking-adjust"' in html
    assert "Last round (1)" in html
    response = adjust(night, game, 1, "-30", "Misdeal", htmx=True)
    assert response.status_code == 200
    html = text(response)
    assert cell(html, 1, 1) == (-10, -10)
    assert totals(html) == {0: 20, 1: -10, 2: 20}
    assert "Round 1, <bdi>Jo</bdi>: −30 (Misdeal)" in html
    assert "<bdi>Jo</bdi> adjusted −30 points in round 1: Misdeal" in html  # the history
    # The next round adds to the adjusted total.
    bid_round(night, game, {0: 1, 1: 1, 2: 0}, round_=2)
    assert result(night, game, {0: 1, 1: 1, 2: 0}, round_=2).status_code == 303
    assert totals(text(night.host.get(game))) == {0: 40, 1: 10, 2: 40}
    # A correction of round 1 keeps the adjustment.
    assert undo(night, game).status_code == 303  # round 2's result
    assert undo(night, game).status_code == 303  # the reveal
    for _ in range(3):
        assert undo(night, game).status_code == 303  # the three bids
    assert undo(night, game).status_code == 303  # the adjustment
    html = text(night.host.get(game))
    assert cell(html, 1, 1) == (20, 20)
    assert "Misdeal" not in html.split("History")[0]
    assert "sk-adjustments" not in html


def test_a_second_adjustment_replaces_the_first_and_0_takes_it_back(night):
    game = adjusted_game(night)
    assert adjust(night, game, 0, "+15", "Table penalty won back").status_code == 303
    assert adjust(night, game, 0, "−5", "Recounted").status_code == 303
    assert cell(text(night.host.get(game)), 1, 0) == (15, 15)
    assert adjust(night, game, 0, "0", "Mistake").status_code == 303
    html = text(night.host.get(game))
    assert cell(html, 1, 0) == (20, 20)
    assert "adjustment in round 1 taken back (Mistake)" in html


@pytest.mark.parametrize("amount, reason, words", [
    ("ten", "Misdeal", "“ten” is not a whole number."),
    ("2.5", "Misdeal", "“2.5” is not a whole number."),
    ("", "Misdeal", "Type the adjustment"),
    ("201", "Misdeal", "An adjustment is a whole number from −200 to +200."),
    ("-5000", "Misdeal", "An adjustment is a whole number from −200 to +200."),
    ("99999999999999999999", "Misdeal", "is not a whole number"),
    ("-10", "", "Give the adjustment a short reason."),
    ("-10", "   ", "Give the adjustment a short reason."),
    ("-10", "x" * 41, "The reason is too long: at most 40 characters."),
    ("-10", "mis\u202edeal", "The reason holds a character that cannot be shown."),
])
def test_bad_adjustments_are_refused_and_nothing_is_recorded(night, amount, reason, words):
    game = adjusted_game(night)
    before = night.pos(game)
    response = adjust(night, game, 1, amount, reason, htmx=True)
    refused(response, 422, words)
    html = text(response)
    assert 'sk-adjust-box" open' in html  # the refusal shows at the adjustment's form
    assert html.count('class="sk-refusal"') == 1
    assert night.pos(game) == before
    assert cell(text(night.host.get(game)), 1, 1) == (20, 20)


@pytest.mark.parametrize("form, words", [
    ({"adjust-round": "2"}, "Round 2 has not been scored yet."),
    ({"adjust-round": "9"}, "There is no round 9."),
    ({"adjust-seat": "4"}, "That seat is not in this game."),
    ({"adjust-seat": "x"}, "is not a whole number"),
])
def test_an_adjustment_of_a_round_not_scored_or_a_stranger_is_refused(night, form, words):
    game = adjusted_game(night)
    data = {"form": "adjust", "adjust-round": "1", "adjust-seat": "1", "amount": "-10",
            "reason": "Misdeal", "pos": night.pos(game), **form}
    refused(night.host.post(f"{game}/skullking/adjust", data=data), 422, words)


def test_a_game_without_the_house_rule_refuses_an_adjustment(night):
    game = start(night, players=(0, 1, 2), way="custom", rounds="2,2")
    bid_round(night, game, {0: 1, 1: 0, 2: 1})
    assert result(night, game, {0: 1, 1: 0, 2: 1}).status_code == 303
    refused(adjust(night, game, 1, "-10", "Misdeal"), 422,
            "This game is played without adjustments.")


def test_only_the_host_adjusts(night):
    game = adjusted_game(night)
    phone = night.phone(0)
    response = phone.post(f"{game}/skullking/adjust", data={
        "form": "adjust", "adjust-round": "1", "adjust-seat": "0", "amount": "50",
        "reason": "Me", "pos": night.pos(game)})
    assert response.status_code == 404


def finished_adjusted_game(night):
    game = start(night, players=(0, 1, 2), way="custom", rounds="1", adjustments="1",
                 missed_bonuses="1")
    bid_round(night, game, {0: 1, 1: 0, 2: 0})
    assert result(night, game, {0: 1, 1: 0, 2: 0}).status_code == 303  # 20, 10, 10
    assert adjust(night, game, 2, "+20", "Misdeal by 민수").status_code == 303  # Sun 30
    return game


def test_the_export_carries_the_house_rules_and_the_adjustment_and_imports_again(night):
    finished_adjusted_game(night)
    raw = night.host.get(f"{night.url}/export.json").data
    document = json.loads(raw)
    sk = document["games"][0]
    assert sk["setup"]["missed_bonuses"] is True and sk["setup"]["adjustments"] is True
    assert {"type": "adjust", "data": {"round": 1, "seat": 2, "amount": 20,
                                       "reason": "Misdeal by 민수"}}.items() <= \
        {k: v for e in sk["events"] if e["type"] == "adjust" for k, v in e.items()}.items()
    parsed = exchange.parse_import(raw, registry.installed())
    assert parsed["games"][0]["state"]["totals"] == {"0": 20, "1": 10, "2": 30}
    assert exchange.dumps(exchange.export_document(
        parsed["created"], parsed["players"], parsed["games"], registry.installed(),
        parsed["colours"])) == raw


def test_an_import_checks_adjustments_by_the_rules(night):
    finished_adjusted_game(night)
    document = json.loads(night.host.get(f"{night.url}/export.json").data)
    bad = json.loads(json.dumps(document))
    next(e for e in bad["games"][0]["events"] if e["type"] == "adjust")["data"]["amount"] = 900
    with pytest.raises(exchange.BadFile, match="Its event log is not one the rules allow"):
        exchange.parse_import(exchange.dumps(bad), registry.installed())
    without = json.loads(json.dumps(document))
    del without["games"][0]["setup"]["adjustments"]
    with pytest.raises(exchange.BadFile, match="Its event log is not one the rules allow"):
        exchange.parse_import(exchange.dumps(without), registry.installed())


def test_the_tally_and_bg_stats_use_the_adjusted_totals(night):
    finished_adjusted_game(night)
    html = text(night.host.get(f"{night.url}/tally"))
    assert "Skull King: final totals" in html
    play = json.loads(night.host.get(f"{night.url}/g/1/bgstats.json").data)
    assert {p["name"]: (p["score"], p["winner"]) for p in play["players"]} == \
        {"민수": (20, False), "Jo": (10, False), "지혜 🙂": (30, True)}
    assert play["board"] == ("2021 edition · Skull King scoring · Bonuses count on a missed "
                             "bid · Adjustments")


def test_statistics_use_the_adjusted_totals_and_exact_bids_stay_about_bids(night):
    from companion.skullking import results

    finished_adjusted_game(night)
    with night.app.test_request_context():
        from companion import store
        from companion.core import stats

        plain = store.game(store.night_by_key(night.key)["id"], 1).plain()
    result = stats.game_result("skullking", plain["setup"], plain["state"], registry.installed())
    from tests.statistics_oracle import over

    found = results.stat_figures(over(results.stat_parts, [
        {"seat": 2, "game": plain, "result": result, "won": True}]))
    assert found["sk_best"] == 30  # 10 scored + 20 adjusted
    assert found["sk_exact"] == {"hits": 1, "rounds": 1}  # bid 0, took 0: a bid, not points
    csv = night.host.get(f"{night.url}/export.csv").data.decode("utf-8-sig")
    assert any(line.endswith(",won,30,1") for line in csv.splitlines()), csv
