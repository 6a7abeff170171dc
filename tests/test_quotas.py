"""What one guest may add to the database in an hour (companion/store/quotas.py,
docs/security.md): new nights and imports are bounded per device and per client
address, a refusal says so in the page's language, and nothing is made."""

import io

from bench.builders import make_night
from companion import store
from companion.store import quotas

GUEST = {"REMOTE_ADDR": "192.168.0.66"}
TABLE = {"REMOTE_ADDR": "192.168.0.21"}


def nights_count(app):
    from companion.store.connection import get_db

    with app.app_context():
        return get_db()["nights"].count


def new_night(client, environ):
    return client.post("/nights", data={"name": ["A", "B", "C"]}, environ_base=environ)


def test_one_address_starts_at_most_its_hours_nights_under_any_device_ids(app):
    """A device id is any token a client makes up: a new client each time is a new
    device, from the same address."""
    for _ in range(quotas.NIGHTS_AN_HOUR):
        assert new_night(app.test_client(), GUEST).status_code == 303
    before = nights_count(app)
    refused = new_night(app.test_client(), GUEST)
    assert refused.status_code == 429
    assert "started many nights in the last hour" in refused.data.decode()
    assert nights_count(app) == before
    assert new_night(app.test_client(), TABLE).status_code == 303  # another address


def test_the_refusal_keeps_what_was_typed_and_speaks_korean(app):
    app.config["NIGHTS_AN_HOUR"] = 1
    assert new_night(app.test_client(), GUEST).status_code == 303
    client = app.test_client()
    client.set_cookie("lang", "ko")
    refused = client.post("/nights", data={"name": ["민수", "Jo", "지혜"]}, environ_base=GUEST)
    html = refused.data.decode()
    assert refused.status_code == 429 and "새 모임을 많이 시작했습니다" in html
    assert 'value="민수"' in html


def test_an_hour_later_the_address_may_start_nights_again(app, monkeypatch):
    app.config["NIGHTS_AN_HOUR"] = 2
    for _ in range(2):
        assert new_night(app.test_client(), GUEST).status_code == 303
    assert new_night(app.test_client(), GUEST).status_code == 429
    real_now = quotas.now
    monkeypatch.setattr(quotas, "now", lambda later=0: real_now(later + 3601))
    assert new_night(app.test_client(), GUEST).status_code == 303


def upload(client, raw, environ):
    return client.post("/import", data={"file": (io.BytesIO(raw), "night.json")},
                       content_type="multipart/form-data", environ_base=environ)


def exported(app, day):
    """A night's export, made a new night by another creation time."""
    import json

    night = make_night(app, ["민수", "Jo", "지혜"])
    document = json.loads(night.host.get(f"/n/{night.key}/export.json").data)
    document["night"]["created"] = f"2025-01-{day:02d}T19:00:00Z"
    return json.dumps(document, ensure_ascii=False).encode()


def test_one_address_imports_at_most_its_hours_nights_and_bytes(app):
    files = [exported(app, day) for day in range(1, quotas.IMPORTS_AN_HOUR + 2)]
    for raw in files[:-1]:
        assert upload(app.test_client(), raw, GUEST).status_code == 303
    before = nights_count(app)
    refused = upload(app.test_client(), files[-1], GUEST)
    assert refused.status_code == 429
    assert "imported many nights in the last hour" in refused.data.decode()
    assert nights_count(app) == before
    assert upload(app.test_client(), files[-1], TABLE).status_code == 303
    app.config["IMPORT_BYTES_AN_HOUR"] = len(files[0]) * 3 // 2
    assert upload(app.test_client(), exported(app, 20), {"REMOTE_ADDR": "10.0.0.9"}
                  ).status_code == 303
    assert upload(app.test_client(), exported(app, 21), {"REMOTE_ADDR": "10.0.0.9"}
                  ).status_code == 429  # two files are more bytes than the hour allows


def test_the_same_form_sent_twice_counts_once(app):
    """A double tap opens the one night it made, and spends one."""
    app.config["NIGHTS_AN_HOUR"] = 1
    client = app.test_client()
    page = client.get("/", environ_base=GUEST).data.decode()
    token = page.split('name="form_token" value="')[1].split('"')[0]
    form = {"name": ["A", "B", "C"], "form_token": token}
    first = client.post("/nights", data=form, environ_base=GUEST)
    again = client.post("/nights", data=form, environ_base=GUEST)
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"]


def test_the_store_counts_nothing_without_an_address(app):
    """The command line and the store's own callers are the laptop's."""
    with app.test_request_context():
        for _ in range(quotas.NIGHTS_AN_HOUR + 1):
            store.create_night(["A", "B", "C"], "laptop")
