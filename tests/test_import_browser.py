"""A night imported on the machine it is already on: the host is asked, keeps it or
replaces it, and nothing is doubled (in a real browser, the file chosen once)."""

import pytest

from bench.browsing import host_night

pytestmark = pytest.mark.browser


def import_file(page, base_url, raw):
    page.goto(base_url + "/history")
    page.locator(".tally-import summary").click()  # the import is folded under the nights
    page.locator(".tally-import input[type=file]").set_input_files(
        files=[{"name": "night.json", "mimeType": "application/json", "buffer": raw}])
    page.locator(".tally-import button[type=submit]").click()


def test_a_night_already_here_is_kept_or_replaced_never_doubled(browser, live_server):
    host = browser.new_context(locale="en-US").new_page()
    night_url = host_night(host, live_server.url, ["Mina", "Jo", "Sun"])
    raw = host.request.get(night_url + "/export.json").body()

    import_file(host, live_server.url, raw)
    question = host.locator(".import-question")
    question.wait_for()
    assert "This night is already here" in question.inner_text()
    host.get_by_role("button", name="Keep the night here; don't import the file").click()
    host.wait_for_url(night_url + "/tally")
    host.goto(live_server.url + "/history")
    assert host.locator(".tally-night").count() == 1

    import_file(host, live_server.url, raw)
    host.get_by_role("button", name="Replace the night here with the file").click()
    host.wait_for_url(night_url + "/tally")
    host.goto(live_server.url + "/history")
    assert host.locator(".tally-night").count() == 1
    assert host.locator(".tally-night time").count() == 1
