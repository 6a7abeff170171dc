"""A host's merges of two spellings of a name: the statistics count them as one player."""

from companion.store.connection import get_db, now, write


def aliases(device: str) -> dict[str, str]:
    """Folded spelling → folded name it was merged into, as ``device`` merged them."""
    return {r["alias"]: r["canonical"] for r in get_db().query(
        "select alias, canonical from aliases where device = ? order by alias", [device])}


def merge_alias(device: str, alias: str, into: str) -> None:
    db = get_db()
    with write(db):
        db.execute("update aliases set canonical = ? where device = ? and canonical = ?",
                   [into, device, alias])
        db.execute("insert or replace into aliases (device, alias, canonical, created) "
                   "values (?, ?, ?, ?)", [device, alias, into, now()])


def unmerge_alias(device: str, alias: str) -> None:
    db = get_db()
    with write(db):
        db.execute("delete from aliases where device = ? and alias = ?", [device, alias])
