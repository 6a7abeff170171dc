"""A ``next`` that stays on this site: anything but a plain path of this site (another
host, a scheme, a control character, a seat or host code) goes to the start page."""

import pytest


@pytest.mark.parametrize("target", [
    "/\t/evil.example", "//evil.example", "/\\evil.example", "\\\\evil.example",
    "/ok\r\nSet-Cookie: x=1", "/ok\nx", "/ok x", "/ok\x00", "/ok\u2028",
    "/%73/abc", "/%68/abc", "/s/abc", "/h/abc", "/%2F/evil.example", "/%5Cevil.example",
    "/%09/evil.example", "http://evil.example/", "evil.example", "",
])
def test_next_that_is_not_a_plain_path_of_this_site_goes_to_the_start(client, target):
    response = client.post("/lang", data={"lang": "en", "next": target})
    assert response.status_code == 303
    assert response.headers["Location"] == "/"
    assert "x=1" not in str(response.headers)


@pytest.mark.parametrize("target", ["/n/abc/tally", "/me", "/", "/stats?name=Ann"])
def test_next_that_is_a_path_of_this_site_is_kept(client, target):
    response = client.post("/lang", data={"lang": "ko", "next": target})
    assert response.status_code == 303
    assert response.headers["Location"] == target
    assert "lang=ko" in response.headers["Set-Cookie"]
