"""A phone that scans someone else's code is told the seat is taken and, when it holds a
seat of its own, given the way back to its own page; a phone without one is not offered
a page it does not have."""

from tests.pages import page_text


def test_a_phone_with_a_seat_that_scans_another_s_code_gets_a_way_back(night):
    night.phone(1)  # Jo's phone
    mina = night.phone(0)
    for answer in (mina.get(f"/s/{night.tokens[1]}", headers={"Accept-Language": "en"}),
                   mina.post(f"/s/{night.tokens[1]}", headers={"Accept-Language": "en"})):
        assert answer.status_code == 409
        html = answer.data.decode()
        assert "already taken on another phone" in html
        assert 'href="/me"' in html and "My page" in page_text(html)
        assert "Jo" not in page_text(html)


def test_a_phone_without_a_seat_is_not_offered_a_page_of_its_own(night, app):
    night.phone(1)
    stranger = app.test_client()
    html = stranger.get(f"/s/{night.tokens[1]}", headers={"Accept-Language": "en"}
                        ).data.decode()
    assert "already taken on another phone" in html
    assert 'href="/me"' not in html
