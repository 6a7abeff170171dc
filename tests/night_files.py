"""A night's file through the pages: the host's export, an import, and the rows the
database holds, to tell that a refused import wrote nothing."""

import io

from companion.store.connection import get_db


def export(night):
    response = night.host.get(f"{night.url}/export.json")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    return response.get_data()


def import_(client, raw, name="night.json"):
    return client.post("/import", data={"file": (io.BytesIO(raw), name)},
                       content_type="multipart/form-data")


def counts(app):
    with app.app_context():
        db = get_db()
        return {t: db[t].count for t in ("nights", "seats", "hosts", "games", "events")}
