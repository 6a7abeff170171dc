"""The app's secret key: made once, whatever number of processes start together, and kept
across starts (an empty one is replaced)."""

import stat
import threading

from companion import app as app_module
from companion.app import _secret_key


def test_processes_starting_together_all_read_the_same_secret_key(tmp_path):
    for round_ in range(20):
        folder = tmp_path / f"instance{round_}"
        folder.mkdir()
        start = threading.Barrier(8)
        keys, errors = [], []

        def boot(folder=folder, start=start, keys=keys, errors=errors):
            start.wait()
            try:
                keys.append(_secret_key(str(folder)))
            except Exception as error:  # any error fails the test below
                errors.append(error)

        threads = [threading.Thread(target=boot) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert len(keys) == 8 and len(set(keys)) == 1 and keys[0]
        key_file = folder / "secret_key"
        assert key_file.read_text() == keys[0]
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        assert [p.name for p in folder.iterdir()] == ["secret_key"]  # no temporary left


def test_the_secret_key_is_kept_across_starts_and_an_empty_one_is_replaced(tmp_path,
                                                                         monkeypatch):
    first = _secret_key(str(tmp_path))
    assert _secret_key(str(tmp_path)) == first
    (tmp_path / "secret_key").write_text("")
    # An empty key is waited for (a writer may be filling it) before it is replaced: two
    # tries here rather than a second's twenty, since what is checked is the replacing.
    monkeypatch.setattr(app_module, "KEY_WAIT_TRIES", 2)
    again = _secret_key(str(tmp_path))
    assert again and again != first
    assert _secret_key(str(tmp_path)) == again
    assert stat.S_IMODE((tmp_path / "secret_key").stat().st_mode) == 0o600
