"""Apps a test makes beyond the fixtures' own (tests/conftest.py): the database each
starts from, the fourth game's, one with live push, one served in a thread for the browser
tests; and what an app's database holds."""

import shutil
import threading
from contextlib import contextmanager
from dataclasses import dataclass

from companion.app import create_app
from companion.store import connection as db
from companion.store.connection import connect


def fresh_database(migrated, path):
    """A copy of the migrated database at ``path`` (its mode too: readable by this user
    only, as the app makes it); returns ``path`` as a string. The app's start still
    runs the migrations, and finds them all applied."""
    shutil.copy(migrated, path)
    return str(path)


#: The fourth game, defined only under tests/ (docs/adding-a-game.md).
FOURTH = "tests.fourthgame.game"


def pushing_app(tmp_path, migrated):
    """An app as `companion serve` runs it, with live push (a reveal's count needs it),
    on a copy of the ``migrated`` database in ``tmp_path``."""
    return create_app({
        "TESTING": True, "DATABASE": fresh_database(migrated, tmp_path / "test.sqlite"),
        "SECRET_KEY": "test",
        "WTF_CSRF_ENABLED": False, "PUBLIC_URL": "http://table.test:8765",
        "LANGUAGE": "en", "LIVE_PUSH": True, "END_HELD": False,
    })


def nights_count(app):
    """How many nights the app's database holds."""
    return connect(app.config["DATABASE"])["nights"].count


@dataclass
class LiveServer:
    url: str
    app: object


@contextmanager
def serving(database):
    """An app on ``database`` served by waitress in a thread of this process, as the
    ``live_server`` fixtures give it: its pages poll every second, and an end is read at
    once (tests/test_held_end.py holds it)."""
    from waitress import create_server

    app = create_app({"DATABASE": database, "SECRET_KEY": "live-test", "POLL_SECONDS": 1,
                      "END_HELD": False})
    server = create_server(app, host="127.0.0.1", port=0, threads=8)
    port = server.effective_port
    app.config["PUBLIC_URL"] = f"http://127.0.0.1:{port}"
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield LiveServer(url=f"http://127.0.0.1:{port}", app=app)
    # Its eight threads end first: one that has just sent an answer still tells the loop
    # (it writes to the loop's trigger), and told after the loop closed it, it died of a
    # bad file descriptor (a test's teardown failed so, on a slow box).
    server.task_dispatcher.shutdown()
    # Then the loop, closed from inside itself; it ends once nothing is left in its map
    # (closed from here while it was in select(), its thread died the same way).
    from waitress import wasyncore

    server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))
    thread.join(timeout=10)
    assert not thread.is_alive(), "the live server's loop did not stop"
    db.close_thread_connections()
