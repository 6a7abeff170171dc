"""No Touch Kraken through the real routes: the start form, the host's two-tap reveal
form and its refusals, the marker, the end, the token series, and secrecy."""

import re

import pytest

from bench.builders import make_night
from tests.kraken_host import (
    FOUR,
    error_notice,
    game_of,
    games_count,
    next_seat,
    play,
    post,
    reveal,
    set_marker,
)
from tests.pages import unmarked
from tests.refusing import status_of

ROLE_WORDS = {"explorer": "Explorer", "skeleton": "Skeleton"}


def roles_in(html):
    """The role words shown as a whole element's text (never in prose like the checklist)."""
    return re.findall(r">\s*(Explorer|Skeleton)\s*<", html)


@pytest.fixture
def kraken(night):
    """A 4-player game (seats 0-3 of the night's 5) started through the form."""
    return night.start("kraken", **FOUR)


# --- starting a game ----------------------------------------------------------------


def test_start_form_ticks_every_seat_and_offers_the_options(night):
    html = night.host.get(f"{night.url}/new/kraken").data.decode()
    assert html.count('type="checkbox" name="seat') == 5
    assert len(re.findall(r'name="seat\d"[^>]* checked', html)) == 5
    for option in ("curse", "specials", "clockwise", "series"):
        assert f'name="{option}"' in html


def test_a_started_game_deals_one_role_per_chosen_seat(night, kraken):
    game = game_of(night, kraken)
    assert game.setup["players"] == [0, 1, 2, 3]
    assert sorted(game.setup["roles"]) == ["0", "1", "2", "3"]
    assert len(game.setup["unused_roles"]) == 1  # 4 players: 3 + 2 role cards, 1 unused


@pytest.mark.parametrize("form, words", [
    ({"seat0": "on", "seat1": "on"}, "3 to 8 players, not 2"),
    ({}, "Choose the players."),
    ({**FOUR, "seat4": "on", "clockwise": "on"}, "8 players only"),
])
def test_start_form_refusals_record_no_game(night, form, words):
    response = night.host.post(f"{night.url}/new/kraken", data=form)
    assert response.status_code == 422
    assert words in response.data.decode()
    assert games_count(night) == 0


def test_a_refused_start_form_keeps_what_was_ticked(night):
    response = night.host.post(f"{night.url}/new/kraken",
                               data={"seat0": "on", "seat1": "on", "curse": "on"})
    html = response.data.decode()
    assert len(re.findall(r'name="seat\d"[^>]* checked', html)) == 2
    assert re.search(r'name="curse"[^>]* checked', html)
    assert not re.search(r'name="specials"[^>]* checked', html)


def test_options_from_the_form_reach_the_rules(night):
    url = night.start("kraken", **FOUR, curse="on", specials="on")
    options = game_of(night, url).setup["options"]
    assert options["curse"] is True and options["specials"] is True
    assert options["clockwise"] is False and options["series"] is None


def test_a_token_series_gets_a_fresh_id_each_time(night):
    first = game_of(night, night.start("kraken", **FOUR, series="on")).setup["options"]
    second = game_of(night, night.start("kraken", **FOUR, series="on")).setup["options"]
    assert first["series"] and second["series"] and first["series"] != second["series"]


def test_the_checklist_shows_the_deck_for_the_count(night):
    url = night.start("kraken", **FOUR, seat4="on")
    html = night.host.get(url).data.decode()
    assert "19 × Empty box" in html and "5 × Treasure" in html and "1 × Kraken" in html
    assert "4 Explorer and 2 Skeleton cards; 1 set aside" in html


def test_the_checklist_with_specials_has_five_fewer_empty_boxes(night):
    html = night.host.get(night.start("kraken", **FOUR, specials="on")).data.decode()
    assert "10 × Empty box" in html and "5 × Special card" in html


def test_the_checklist_with_the_curse_builds_a_treasure_pile(night):
    html = night.host.get(night.start("kraken", **FOUR, curse="on")).data.decode()
    assert "treasure pile of 4 cards" in html and "add 1 of them" in html


# --- the marker and the reveal form -------------------------------------------------


def test_the_marker_step_comes_first_and_the_reveal_form_after(night, kraken):
    html = night.host.get(kraken).data.decode()
    assert "at sea most recently" in html and "kraken-reveal" not in html
    set_marker(night, kraken, 2)
    html = night.host.get(kraken).data.decode()
    assert "kraken-reveal" in html
    assert re.search(r'name="seat" value="2" required disabled', html)  # own card: off
    assert game_of(night, kraken).state["marker"] == 2


def test_the_revealed_cards_owner_takes_the_marker(night, kraken):
    set_marker(night, kraken, 0)
    reveal(night, kraken, 3, "empty")
    state = game_of(night, kraken).state
    assert state["marker"] == 3
    assert state["cards_in_front"] == {"0": 5, "1": 5, "2": 5, "3": 4}
    assert state["action"] == 2


def test_a_special_card_button_records_which_special(night):
    url = night.start("kraken", **FOUR, specials="on")
    set_marker(night, url, 0)
    reveal(night, url, 1, "special:light_in_the_deep")
    state = game_of(night, url).state
    assert state["special_revealed"] == ["light_in_the_deep"]
    html = night.host.get(url).data.decode()
    assert 'value="special:light_in_the_deep"' not in html  # it cannot turn up twice
    assert "Light in the Deep" in html


def test_under_the_eight_player_rule_the_marker_moves_clockwise(app):
    eight = make_night(app, ["A", "B", "C", "D", "E", "F", "G", "H"])
    form = {f"seat{i}": "on" for i in range(8)}
    url = eight.start("kraken", **form, clockwise="on")
    set_marker(eight, url, 0)
    reveal(eight, url, 5, "empty")
    assert game_of(eight, url).state["marker"] == 1


def test_the_first_marker_can_be_changed_until_the_first_reveal(night, kraken):
    set_marker(night, kraken, 0)
    set_marker(night, kraken, 1)
    reveal(night, kraken, 2, "empty")
    response = post(night, kraken, "marker", {"seat": 0})
    assert response.status_code == 422
    assert "before the first reveal" in error_notice(response)


def test_a_stale_change_of_marker_opens_its_fold_to_say_so(night, kraken):
    set_marker(night, kraken, 0)
    stale = night.pos(kraken)
    set_marker(night, kraken, 1)  # another host device changed it first
    response = post(night, kraken, "marker", {"seat": 2}, pos=stale)
    assert status_of(response) == 409
    fold = re.search(r"<details( open)?><summary>Change who takes the marker first</summary>"
                     r"(.*?)</details>", response.data.decode(), re.S)
    assert fold.group(1) == " open" and "The table moved on" in fold.group(2)
    assert game_of(night, kraken).state["marker"] == 1


def test_a_round_end_tells_the_table_to_deal_again(night, kraken):
    game = play(night, kraken, ["empty"] * 4)
    assert game.state["round"] == 2
    html = night.host.get(kraken).data.decode()
    assert "Round 1 is over" in html and "deal 4 cards to each player" in html
    assert all(n == 4 for n in game.state["cards_in_front"].values())


def refusal_setup(night, kind):
    """A game ready for a refused reveal; returns (url, form)."""
    if kind == "own card":
        url = night.start("kraken", **FOUR)
        set_marker(night, url, 1)
        return url, {"seat": "1", "card": "empty"}
    if kind == "unknown seat":
        url = night.start("kraken", **FOUR)
        set_marker(night, url, 1)
        return url, {"seat": "4", "card": "empty"}  # seat 4 sits this game out
    if kind == "non-integer seat":
        url = night.start("kraken", **FOUR)
        set_marker(night, url, 1)
        return url, {"seat": "two", "card": "empty"}
    if kind == "no seat":
        url = night.start("kraken", **FOUR)
        set_marker(night, url, 1)
        return url, {"card": "empty"}
    if kind == "unknown card":
        url = night.start("kraken", **FOUR)
        set_marker(night, url, 1)
        return url, {"seat": "2", "card": "gold"}
    if kind == "curse not in play":
        url = night.start("kraken", **FOUR)
        set_marker(night, url, 1)
        return url, {"seat": "2", "card": "curse"}
    if kind == "special not in play":
        url = night.start("kraken", **FOUR)
        set_marker(night, url, 1)
        return url, {"seat": "2", "card": "special:lost_treasure"}
    if kind == "unknown special":
        url = night.start("kraken", **FOUR, specials="on")
        set_marker(night, url, 1)
        return url, {"seat": "2", "card": "special:ghost_ship"}
    if kind == "over the deck":
        # 4 players with the Special cards: 5 of the 6 are in the deck.
        url = night.start("kraken", **FOUR, specials="on")
        names = ["lost_treasure", "skeletons_grasp", "revealed_identity",
                 "krakens_presence", "light_in_the_deep"]
        game = play(night, url, [f"special:{n}" for n in names])
        return url, {"seat": str(next_seat(game.state)), "card": "special:captains_obsession"}
    if kind == "after the end":
        url = night.start("kraken", **FOUR)
        game = play(night, url, ["kraken"])
        return url, {"seat": str(next_seat(game.state)), "card": "empty"}
    if kind == "before the marker":
        url = night.start("kraken", **FOUR)
        return url, {"seat": "2", "card": "empty"}
    raise AssertionError(kind)


@pytest.mark.parametrize("kind, words", [
    ("own card", "cannot reveal their own card"),
    ("unknown seat", "That seat is not playing in this game."),
    ("non-integer seat", "Say whose card was revealed."),
    ("no seat", "Say whose card was revealed."),
    ("unknown card", "Say which card was revealed."),
    ("curse not in play", "The Greedy Captain&#39;s Curse is not in this game."),
    ("special not in play", "The Special cards are not in this game."),
    ("unknown special", "Say which Special card was revealed."),
    ("over the deck", "The deck holds only 5 Special cards."),
    ("after the end", "The game is over: nothing more can be recorded."),
    ("before the marker", "First record who takes the action marker."),
])
@pytest.mark.parametrize("htmx", [False, True])
def test_reveal_refusals_say_why_and_record_nothing(night, kind, words, htmx):
    url, form = refusal_setup(night, kind)
    before = game_of(night, url)
    response = post(night, url, "reveal", form, htmx=htmx)
    assert status_of(response) == 422
    html = response.data.decode()
    assert words in html
    assert html.lstrip().startswith('<div id="live"') == htmx  # a fragment for htmx
    after = game_of(night, url)
    assert len(after.events) == len(before.events)
    assert after.state == before.state


@pytest.mark.parametrize("seat", ["x", "1.5", "", "-1", "99"])
def test_marker_refusals_record_nothing(night, kraken, seat):
    response = post(night, kraken, "marker", {"seat": seat})
    assert response.status_code == 422
    assert error_notice(response)
    assert game_of(night, kraken).events == []


def test_a_stale_reveal_is_refused_and_shows_the_latest(night, kraken):
    set_marker(night, kraken, 0)
    stale = night.pos(kraken)
    reveal(night, kraken, 1, "empty")  # another host device got there first
    response = post(night, kraken, "reveal", {"seat": "2", "card": "treasure"}, pos=stale)
    assert response.status_code == 409
    assert "The table moved on" in response.data.decode()
    state = game_of(night, kraken).state
    assert state["revealed"]["treasure"] == 0 and state["marker"] == 1


@pytest.mark.parametrize("pos", ["abc", "", "1.0"])
def test_a_form_without_a_whole_number_pos_never_records(night, kraken, pos):
    set_marker(night, kraken, 0)
    response = post(night, kraken, "reveal", {"seat": "1", "card": "empty"}, pos=pos)
    assert response.status_code == 422
    assert "reload the page" in error_notice(response)
    assert len(game_of(night, kraken).effective) == 1


def test_a_phone_cannot_use_the_hosts_forms(night, kraken):
    phone = night.phone(1)
    response = phone.post(f"{kraken}/kraken/marker", data={"seat": "1", "pos": "0"})
    assert response.status_code == 404
    assert game_of(night, kraken).events == []


def test_an_unknown_game_is_a_404(night):
    assert night.host.post(f"{night.url}/g/9/kraken/reveal", data={}).status_code == 404


# --- the end ------------------------------------------------------------------------


def test_the_kraken_ends_the_game_and_every_role_is_revealed(night, kraken):
    game = play(night, kraken, ["empty", "kraken"])
    assert game.state["outcome"] == "skeletons" and game.finished
    html = night.host.get(kraken).data.decode()
    assert "The Skeletons win!" in html and "The Kraken was revealed." in html
    for seat, role in game.setup["roles"].items():
        assert re.search(rf'data-role="{seat}">{ROLE_WORDS[role]}<', html)
    unused = re.findall(r'class="unused-role">(\w+)<', html)
    assert unused == [ROLE_WORDS[r] for r in game.setup["unused_roles"]] and len(unused) == 1
    assert "kraken-reveal" not in html
    for position in range(4):
        phone_html = night.phone(position).get("/me").data.decode()
        assert "The Skeletons win!" in phone_html
        assert len(re.findall(r'data-role="\d"', phone_html)) == 4
        assert "Hold to see your role" not in phone_html


def test_all_treasure_found_is_an_explorer_win_naming_the_winners(night, kraken):
    game = play(night, kraken, ["treasure"] * 4)
    assert game.state["outcome"] == "explorers"
    html = night.host.get(kraken).data.decode()
    assert "The Explorers win!" in html and "Every Treasure has been found." in html
    names = ["민수", "Jo", "지혜 🙂", "Ann"]
    winners = [names[s] for s in game.state["winners"]]
    assert "Winners: " + ", ".join(f"<bdi>{w}</bdi>" for w in winners) in html


def test_round_four_over_is_a_skeleton_win(night, kraken):
    game = play(night, kraken, ["empty"] * 15 + ["treasure"])
    assert game.state["reason"] == "rounds_over" and game.state["outcome"] == "skeletons"
    assert "Round 4 is over" in night.host.get(kraken).data.decode()


def test_undo_takes_back_the_reveal_that_ended_the_game(night, kraken):
    play(night, kraken, ["empty", "kraken"])
    response = night.host.post(f"{kraken}/undo", data={"pos": night.pos(kraken)})
    assert response.status_code == 303
    game = game_of(night, kraken)
    assert not game.finished and game.state["revealed"]["kraken"] == 0
    assert game.state["roles"] is None
    html = night.host.get(kraken).data.decode()
    assert roles_in(html) == [] and "kraken-reveal" in html
    # and redo puts the end back
    night.host.post(f"{kraken}/redo", data={"pos": night.pos(kraken)})
    assert game_of(night, kraken).state["outcome"] == "skeletons"


@pytest.mark.parametrize("cards", [["empty"], ["treasure"], ["empty", "treasure", "empty"]])
def test_undo_works_for_every_reveal(night, kraken, cards):
    play(night, kraken, cards)
    for left in range(len(cards) - 1, -1, -1):
        night.host.post(f"{kraken}/undo", data={"pos": night.pos(kraken)})
        assert len(game_of(night, kraken).state["reveals"]) == left


# --- secrecy ------------------------------------------------------------------------


def test_before_the_end_no_page_shows_another_seats_role(night, kraken):
    game = play(night, kraken, ["empty", "treasure"])
    roles = game.setup["roles"]
    host_pages = [night.host.get(kraken).data.decode(),
                  night.host.get(f"{kraken}/live").data.decode(),
                  night.host.get(night.url).data.decode()]
    for html in host_pages:
        assert roles_in(html) == []
        assert "data-role" not in html and 'class="secret"' not in html
    for position in range(4):
        phone = night.phone(position)
        for html in (phone.get("/me").data.decode(), phone.get("/me/live").data.decode()):
            # exactly one role on the page: this phone's own, behind hold-to-reveal
            assert roles_in(html) == [ROLE_WORDS[roles[str(position)]]]
            assert html.count('class="secret"') == 1
            assert re.search(r'id="role-secret" data-secret hidden>\s*<p class="secret">'
                             + ROLE_WORDS[roles[str(position)]], html)
    # the seat that sits this game out sees no role at all
    out = night.phone(4).get("/me").data.decode()
    assert roles_in(out) == [] and "not playing this game" in out


def test_the_history_and_refusals_never_name_a_role(night, kraken):
    play(night, kraken, ["empty", "treasure"])
    response = post(night, kraken, "reveal", {"seat": "9", "card": "empty"})
    html = response.data.decode()
    assert response.status_code == 422
    assert roles_in(html) == []
    history = html[html.index('class="history"'):]
    assert "Explorer" not in history and "Skeleton" not in history
    assert "Jo&#39;s card is revealed: an Empty box." in history or \
        "card is revealed: an Empty box." in history


def test_seen_shows_on_the_host_screen_but_never_the_role(night, kraken):
    phone = night.phone(2)
    assert phone.post("/me/seen").status_code == 204
    html = unmarked(night.host.get(kraken).data.decode())
    assert re.search(r'data-seen="2">[^<]*<span class="status claimed">✓ seen', html)
    assert re.search(r'data-seen="1">[^<]*<span class="status open">', html)
    assert roles_in(html) == []


def test_a_passed_tablet_notes_seen_only_when_the_player_reveals_their_role(night, kraken):
    html = night.host.post(f"{night.url}/pass/3").data.decode()
    assert 'data-hold="role-secret"' in html and len(roles_in(html)) == 1
    seen_url = re.search(r'data-seen-url="([^"]+)"', html).group(1)
    assert seen_url == f"{night.url}/pass/3/seen"
    seen = 'data-seen="3">Ann: <span class="status {}">'
    assert seen.format("open") in unmarked(night.host.get(kraken).data.decode())
    assert night.host.post(seen_url).status_code == 204  # what holding the button sends
    assert seen.format("claimed") in unmarked(night.host.get(kraken).data.decode())
    assert night.phone(3).get("/me").data.decode().count('data-seen-url="/me/seen"') == 1


def test_only_the_host_notes_a_passed_player_seen(night, kraken):
    assert night.phone(2).post(f"{night.url}/pass/3/seen").status_code == 404
    assert night.app.test_client().post(f"{night.url}/pass/3/seen").status_code == 404
    assert 'data-seen="3">Ann: <span class="status open">' in unmarked(
        night.host.get(kraken).data.decode())


# --- the token series ---------------------------------------------------------------


def losers(game):
    return set(game.state["losers"])


def test_series_tokens_go_to_the_losing_team_game_after_game(night):
    url = night.start("kraken", **FOUR, series="on")
    first = play(night, url, ["kraken"])
    html = night.host.get(url).data.decode()
    for seat in range(4):
        expected = 1 if seat in losers(first) else 0
        assert re.search(rf'data-tokens="{seat}">{expected}<', html)
    response = night.host.post(f"{url}/kraken/next")
    assert response.status_code == 303
    url2 = response.headers["Location"]
    second = game_of(night, url2)
    assert second.number == 2 and second.setup["players"] == [0, 1, 2, 3]
    assert second.setup["options"] == first.setup["options"]
    # an unfinished game never counts
    html = night.host.get(url2).data.decode()
    for seat in range(4):
        expected = 1 if seat in losers(first) else 0
        assert re.search(rf'data-tokens="{seat}">{expected}<', html)
    second = play(night, url2, ["treasure"] * 4)
    html = night.host.get(url2).data.decode()
    for seat in range(4):
        expected = (seat in losers(first)) + (seat in losers(second))
        assert re.search(rf'data-tokens="{seat}">{expected}<', html)
    phone = night.phone(0).get("/me").data.decode()
    assert f'data-tokens="0">{(0 in losers(first)) + (0 in losers(second))}<' in phone


def test_the_series_ends_at_three_tokens_and_names_the_fewest(night):
    url = night.start("kraken", **FOUR, series="on")
    tokens = dict.fromkeys(range(4), 0)
    for _ in range(6):
        game = play(night, url, ["kraken"])
        for seat in losers(game):
            tokens[seat] += 1
        if max(tokens.values()) >= 3:
            break
        url = night.host.post(f"{url}/kraken/next").headers["Location"]
    assert max(tokens.values()) == 3
    html = night.host.get(url).data.decode()
    assert "The series is over." in html
    names = ["민수", "Jo", "지혜 🙂", "Ann"]
    fewest = min(tokens.values())
    winners = ", ".join(names[s] for s in range(4) if tokens[s] == fewest)
    assert f"Winners, with the fewest tokens:\n    {winners}" in html or winners in html
    assert "kraken/next" not in html
    count = games_count(night)
    response = night.host.post(f"{url}/kraken/next")
    assert response.status_code == 422
    assert "The token series is already over." in response.data.decode()
    assert games_count(night) == count


def test_next_game_waits_for_the_end(night, kraken):
    set_marker(night, kraken, 0)
    response = night.host.post(f"{kraken}/kraken/next")
    assert response.status_code == 422
    assert "Finish this game before starting the next one." in response.data.decode()
    assert games_count(night) == 1


def test_next_game_twice_starts_one_game(night, kraken):
    play(night, kraken, ["kraken"])
    first = night.host.post(f"{kraken}/kraken/next")
    again = night.host.post(f"{kraken}/kraken/next")
    assert first.headers["Location"] == again.headers["Location"]
    assert games_count(night) == 2
    assert "Go to game #2" in night.host.get(kraken).data.decode()


def test_next_game_without_a_series_deals_new_roles_and_phones_follow(night, kraken):
    play(night, kraken, ["kraken"])
    url2 = night.host.post(f"{kraken}/kraken/next").headers["Location"]
    game2 = game_of(night, url2)
    assert game2.setup["options"]["series"] is None
    assert "kraken-series" not in night.host.get(url2).data.decode()
    phone = night.phone(1).get("/me").data.decode()
    assert "Hold to see your role" in phone and "The Skeletons win!" not in phone


# --- a Special card's moves (docs/rules.md#kraken-specials) ---------------------------


def special_up(night):
    """A game with the Special cards where Jo (seat 1) has just turned up one."""
    url = night.start("kraken", **FOUR, specials="on")
    set_marker(night, url, 0)
    reveal(night, url, 1, "special:captains_obsession")
    return url


def test_the_special_moves_appear_once_a_special_is_face_up(night):
    url = night.start("kraken", **FOUR, specials="on")
    set_marker(night, url, 0)
    assert 'data-action="kraken-special-marker"' not in night.host.get(url).data.decode()
    reveal(night, url, 1, "special:captains_obsession")
    html = night.host.get(url).data.decode()
    for move in ("marker", "reveal", "role", "count"):
        assert f'data-action="kraken-special-{move}"' in html
    assert 'data-action="kraken-note"' in html


def test_each_special_move_is_recorded_through_its_form(night):
    url = special_up(night)
    assert post(night, url, "special-marker", {"seat": 3}).status_code == 303
    assert post(night, url, "special-reveal", {"seat": 2, "card": "treasure"}).status_code == 303
    assert post(night, url, "special-role", {"seat": 0, "to": 2}).status_code == 303
    assert post(night, url, "special-count", {"count": "empty:-1"}).status_code == 303
    assert post(night, url, "note", {"text": "  Jo   looked twice "}).status_code == 303
    game = game_of(night, url)
    assert [(e["type"], e["data"]) for e in game.events[-5:]] == [
        ("special_marker", {"seat": 3}),
        ("special_reveal", {"seat": 2, "card": "treasure"}),
        ("special_role", {"seat": 0, "to": 2}),
        ("special_count", {"kind": "empty", "by": -1}),
        ("note", {"text": "Jo looked twice"}),
    ]
    state = game.state
    assert (state["marker"], state["revealed"]["treasure"], state["in_game"]["empty"]) == (
        3, 1, 9)
    html = night.host.get(url).data.decode()
    assert "Special card: <bdi>지혜 🙂</bdi> sees <bdi>민수</bdi>'s role." in html
    assert roles_in(html) == []


@pytest.mark.parametrize("action, form, words", [
    ("special-marker", {"seat": ""}, "Say who takes the action marker."),
    ("special-marker", {"seat": 1}, "Jo has the action marker already."),
    ("special-role", {"seat": 0}, "Say who saw the role."),
    ("special-role", {"seat": 2, "to": 2}, "A player knows their own role"),
    ("special-count", {"count": "kraken:1"}, "Say which count goes up or down by one."),
    ("special-count", {"count": "treasure:2"}, "Say which count goes up or down by one."),
    ("special-count", {"count": "empty:1"}, "The box holds only 31 Empty boxes."),
    ("special-reveal", {"seat": 2, "card": "special:captains_obsession"},
     "already"),
    ("note", {"text": "   "}, "Write the note first."),
    ("note", {"text": "x" * 201}, "A note is one line of at most 200 characters."),
])
def test_special_move_refusals_say_why_and_record_nothing(night, action, form, words):
    url = special_up(night)
    if form == {"count": "empty:1"}:
        for _ in range(21):  # a 4-player deck with the Specials holds 10 Empty boxes
            assert post(night, url, "special-count", {"count": "empty:1"}).status_code == 303
    before = game_of(night, url)
    response = post(night, url, action, form)
    assert response.status_code == 422
    assert words in response.data.decode()
    assert len(game_of(night, url).events) == len(before.events)


def test_the_special_moves_are_the_hosts_alone(night):
    url = special_up(night)
    response = night.phone(1).post(f"{url}/kraken/special-marker",
                           data={"pos": night.pos(url), "seat": 3})
    assert response.status_code in (403, 404)
    assert game_of(night, url).state["marker"] == 1
