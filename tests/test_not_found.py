"""What a 404 says: a night's address reached without its host cookie explains
`companion host-link` (without telling whether the night exists), any other address
gets the plain 404, and a missing file under /static/ is a small uncached 404."""

from pathlib import Path

import pytest

from tests.pages import text_without_bdi, without_tokens

# --- the 404 of a night's address ---------------------------------------------------------


def test_a_lost_cookie_404_explains_host_link_without_telling_whether_the_night_exists(
        app, night):
    stranger = app.test_client()  # the host's browser after its cookies went
    known = stranger.get(night.url)
    unknown = stranger.get("/n/no-such-night")
    deeper = stranger.get(f"{night.url}/g/1")
    assert known.status_code == unknown.status_code == deeper.status_code == 404
    # The same page, byte for byte, but for the form token's signature: it carries the
    # second it was signed in, and a loaded box may tick between the three requests.
    assert (without_tokens(known.get_data(as_text=True))
            == without_tokens(unknown.get_data(as_text=True))
            == without_tokens(deeper.get_data(as_text=True)))
    html = text_without_bdi(known)
    assert "There is nothing here." in html
    assert "<code>.venv/bin/companion host-link</code>" in html
    assert "this browser lost its cookies" in html and "5 minutes" in html
    assert night.key not in html


def test_the_host_link_help_is_korean_in_korean(app, night):
    html = text_without_bdi(app.test_client().get(night.url, headers={"Accept-Language": "ko"}))
    assert "쿠키" in html and "companion host-link" in html


def test_a_host_missing_a_page_of_its_own_night_gets_the_plain_404(night):
    response = night.host.get(f"{night.url}/g/99")
    assert response.status_code == 404
    assert "host-link" not in text_without_bdi(response)


def test_any_other_address_gets_the_plain_404(client):
    assert "host-link" not in text_without_bdi(client.get("/nothing/here"))


# --- 404s under /static/ ---------------------------------------------------------------

@pytest.mark.parametrize("path", ["/static/nothing.css", "/static/nothing.css?v=1",
                                  "/static/no/such/dir.js", "/static/"])
def test_a_missing_static_file_is_a_small_uncached_404_that_sets_no_cookie(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.mimetype == "text/plain"
    assert len(response.get_data()) < 64
    assert response.headers["Cache-Control"] == "no-store"
    assert "Set-Cookie" not in response.headers
    assert "csrf" not in response.get_data(as_text=True)


def test_a_static_file_that_exists_is_still_cached_a_year(app, client):
    name = next(p.name for p in Path(app.static_folder).iterdir() if p.is_file())
    response = client.get(f"/static/{name}")
    assert response.status_code == 200
    assert "max-age=31536000" in response.headers["Cache-Control"]


def test_a_missing_page_elsewhere_is_still_the_full_error_page(client):
    response = client.get("/no/such/page")
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    assert "There is nothing here." in response.get_data(as_text=True)
