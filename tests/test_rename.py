"""Names, through the real routes: a name longer than 30 characters is refused with the
reason, never cut; the host renames a player under "Name, colour and seat code", and
every page, export and statistic follows; an export made before the rename is still the
night already here."""

import json
import re

import pytest

from bench.builders import ROLES, kraken_game, kraken_kraken_first, make_night, play
from companion import store
from tests.night_files import counts, export, import_
from tests.pages import text_without_bdi
from tests.refusing import status_of

LONG = "Bartholomew the Unsinkable Pirate"  # 33 characters


@pytest.fixture
def trio(app):
    """민수, Jo, Ann with a finished Kraken game (Jo, the Skeleton, wins it)."""
    night = make_night(app, ["민수", "Jo", "Ann"])
    night.host.set_cookie("lang", "en")
    play(app, night, kraken_game(1, ROLES, kraken_kraken_first()))
    return night


def rename(night, position, name, htmx=True):
    headers = {"HX-Request": "true"} if htmx else {}
    return night.host.post(f"{night.url}/seats/{position}/name", data={"name": name},
                           headers=headers)


def page(client, url):
    return text_without_bdi(client.get(url))


def test_a_name_past_30_characters_is_refused_saying_so_never_cut(app, client):
    response = client.post("/nights", data={"name": [LONG, "Jo"]})
    assert response.status_code == 422
    html = text_without_bdi(response)
    assert f"“{LONG}” has 33 characters: a name has at most 30. Shorten it." in html
    assert f'value="{LONG}"' in html  # kept whole, to be shortened by the host
    assert 'maxlength="30"' not in html  # the field cuts nothing as it is typed
    assert counts(app)["nights"] == 0


def test_a_latecomer_past_30_characters_is_refused_in_its_form(trio):
    response = trio.host.post(f"{trio.url}/seats", data={"name": LONG},
                              headers={"HX-Request": "true"})
    assert status_of(response) == 422
    form = text_without_bdi(response).split('data-action="seat-join"')[1]
    assert "has 33 characters: a name has at most 30" in form.split("</form>")[0]
    assert f'value="{LONG}"' in form


def test_a_rename_reaches_every_page_export_and_statistic(trio):
    phone = trio.phone(1)
    assert "Jo" in page(trio.host, "/stats")
    assert rename(trio, 1, "Joanna the Bold").status_code == 200
    table = page(trio.host, trio.url)
    assert "Joanna the Bold" in table and ">Jo<" not in table
    assert "Joanna the Bold" in page(phone, "/me")
    assert "Joanna the Bold" in page(trio.host, f"{trio.url}/tally")
    assert "Joanna the Bold" in page(trio.host, f"{trio.url}/g/1")
    assert json.loads(export(trio))["night"]["players"] == ["민수", "Joanna the Bold", "Ann"]
    assert "Joanna the Bold" in page(trio.host, f"{trio.url}/export.csv")
    assert "Joanna the Bold" in page(trio.host, "/history")
    stats = page(trio.host, "/stats")
    assert "Joanna the Bold" in stats
    assert not re.search(r">\s*Jo\s*<", stats)  # the old name counts no more


@pytest.mark.parametrize(("name", "said"), [
    ("ann", "Two players are called “ann”"),
    (LONG, "has 33 characters"),
    ("   ", "Type the player's name."),
])
def test_a_rename_is_refused_at_its_own_form_and_changes_nothing(trio, name, said):
    response = rename(trio, 1, name)
    assert status_of(response) == 422
    html = text_without_bdi(response)
    forms = re.finditer(r'<form[^>]*action="[^"]*/seats/(\d)/name".*?</form>', html, re.S)
    refused = {form.group(1): form.group(0) for form in forms
               if "notice error refusal" in form.group(0)}
    assert list(refused) == ["1"] and said in refused["1"].replace("&#39;", "'")
    with trio.app.test_request_context():
        assert store.names(store.night_by_key(trio.key)["id"])[1] == "Jo"


def test_a_rename_to_the_same_name_in_other_case_is_the_players_own(trio):
    assert rename(trio, 1, "JO", htmx=False).status_code == 303
    assert "JO" in page(trio.host, trio.url)


def test_an_export_made_before_a_rename_is_still_the_night_already_here(app, trio):
    raw = export(trio)
    assert rename(trio, 1, "Joanna", htmx=False).status_code == 303
    before = counts(app)
    response = import_(trio.host, raw)
    assert response.status_code == 200
    assert "This night is already here" in response.get_data(as_text=True)
    assert counts(app) == before


def test_another_night_of_the_moment_is_not_matched_by_a_former_name(app, trio):
    """(A former name matches its own seat only: the roster's order still counts.)"""
    assert rename(trio, 1, "Joanna", htmx=False).status_code == 303
    document = json.loads(export(trio))
    document["night"]["players"] = ["Jo", "민수", "Ann"]
    response = import_(app.test_client(), json.dumps(document).encode())
    assert response.status_code == 303  # imported as a night of its own
