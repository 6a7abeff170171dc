"""A browser that dies while its driver connects is started again (tests/engines.py), with
a fresh profile, and a device given up names every try: the WebKit and Firefox walk tests
what a page does, once a session is made."""

import pytest
from selenium.common.exceptions import WebDriverException

from tests.engines import Device

MARIONETTE = "Failed to decode response from marionette"


class Driver:
    """What a Device asks of its driver while it is made."""

    def set_page_load_timeout(self, seconds):
        self.page_load_timeout = seconds

    def set_window_size(self, width, height):
        self.size = (width, height)

    def execute_script(self, script, *args):
        return list(self.size)


def starting(monkeypatch, failures):
    """Device._firefox fails ``failures`` times (leaving a driver log), then starts."""
    tries = []

    def firefox(device, folder):
        tries.append(folder)
        (folder / "driver.log").write_text(f"geckodriver log of try {len(tries)}")
        if len(tries) <= failures:
            raise WebDriverException(MARIONETTE)
        return Driver()

    monkeypatch.setattr(Device, "_firefox", firefox)
    return tries


def test_a_browser_that_dies_as_it_starts_is_started_again_with_a_fresh_profile(
        monkeypatch, tmp_path):
    tries = starting(monkeypatch, failures=2)
    device = Device("firefox", "ann", tmp_path, width=390, height=844)
    assert isinstance(device.driver, Driver)
    assert len(tries) == 3 and len(set(tries)) == 3
    assert all(profile.parent == tmp_path for profile in tries)
    assert device.driver.size == (390, 844)


def test_a_browser_that_never_starts_is_given_up_with_each_try_s_reason(
        monkeypatch, tmp_path):
    tries = starting(monkeypatch, failures=Device.STARTS)
    with pytest.raises(RuntimeError) as given_up:
        Device("firefox", "ann", tmp_path)
    assert len(tries) == Device.STARTS
    message = str(given_up.value)
    assert f"did not start in {Device.STARTS} tries" in message
    assert message.count(MARIONETTE) == Device.STARTS
    assert "geckodriver log of try 3" in message
