"""Apps a test makes beyond the fixtures' own (tests/conftest.py): the database each
starts from, the fourth game's, one with live push; and what an app's database holds."""

import shutil

from companion.app import create_app
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
