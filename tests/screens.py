"""The room's screen as the host makes one: the one-time code shown on the tablet, and a
TV that scans it and becomes the screen."""

import re

CODE = re.compile(r"/t/([A-Za-z0-9_-]{32,64})")


def show_code(night, host=None):
    """The host taps "Show a one-time screen code": its token."""
    html = (host or night.host).post(f"{night.url}/screens").data.decode()
    return CODE.search(html).group(1)


def screen_device(night):
    """A TV that scans the code and answers "make this the room's screen"."""
    token = show_code(night)
    tv = night.app.test_client()
    assert tv.get(f"/t/{token}").status_code == 200
    response = tv.post(f"/t/{token}")
    assert response.status_code == 303
    assert response.headers["Location"] == f"{night.url}/screen"
    return tv
