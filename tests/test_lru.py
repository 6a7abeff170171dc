"""The per-process caches are bounded by what they hold (companion/core/lru.py): a count
alone let one guest's two 8,000-event games fill a cache with gigabytes."""

from companion.core.lru import LRU, Pickled
from companion.web import offload


def test_a_cache_past_its_bytes_drops_its_least_recently_used():
    cache = Pickled(100, most_bytes=3000)
    for n in range(10):
        cache.put(n, b"x" * 900)
    assert len(cache) == 3 and cache.weight <= 3000
    assert cache.get(9) is not None and cache.get(6) is None


def test_an_entry_put_again_is_weighed_once():
    cache = LRU(10, most_bytes=100, weigh=len)
    for _ in range(5):
        cache.put("same", "y" * 60)
    assert cache.weight == 60 and cache.get("same") == "y" * 60


def test_one_entry_larger_than_the_bound_is_kept_alone():
    """The newest answer is kept (the next asker of the same is the table's next
    screen), and nothing else."""
    cache = LRU(10, most_bytes=100, weigh=len)
    cache.put("small", "s")
    cache.put("large", "l" * 500)
    assert len(cache) == 1 and cache.get("large") and cache.weight == 500


def test_a_count_still_bounds_an_unweighed_cache():
    cache = LRU(3)
    for n in range(5):
        cache.put(n, n + 1)
    assert len(cache) == 3 and cache.weight == 0 and cache.get(0) is None


def test_clearing_forgets_the_weight():
    cache = Pickled(10, most_bytes=10**6)
    cache.put(1, list(range(1000)))
    cache.clear()
    assert cache.weight == 0 and len(cache) == 0


def test_a_games_history_is_worked_out_once_whatever_else_changes_in_the_night(
        app, monkeypatch):
    """A change elsewhere in the night (a seat's colour, again and again) keeps the
    game's history: it is kept once, not once a night's version (two 8,000-event
    games and a loop of colour changes filled the old cache with gigabytes)."""
    from bench.builders import make_night
    from companion.play import actions

    night = make_night(app, ["민수", "Jo", "지혜"])
    url = night.start("skullking", seat0="on", seat1="on", seat2="on")
    made = []
    real = actions.history
    monkeypatch.setattr(actions, "history", lambda *a: made.append(1) or real(*a))
    assert night.host.get(url).status_code == 200
    for colour in ("blue", "green", "blue", "green"):
        night.host.post(f"{night.url}/seats/0/colour", data={"colour": colour})
        assert night.host.get(url).status_code == 200
    assert len(made) == 1


def test_one_address_has_one_costly_answer_under_way_at_a_time():
    """Four requests at once from one address take their turns; another address does
    not wait for them (companion/web/offload.py, ``costly``)."""
    import threading
    import time


    inside, most, lock = [0], [0], threading.Lock()

    def ask(address):
        with offload.one_at_a_time(address):
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.05)
            with lock:
                inside[0] -= 1

    guests = [threading.Thread(target=ask, args=("192.168.0.66",)) for _ in range(4)]
    for thread in guests:
        thread.start()
    for thread in guests:
        thread.join()
    assert most[0] == 1 and offload._turns == {}
    inside[0] = most[0] = 0
    both = [threading.Thread(target=ask, args=(a,)) for a in ("10.0.0.1", "10.0.0.2")]
    for thread in both:
        thread.start()
    for thread in both:
        thread.join()
    assert most[0] == 2
