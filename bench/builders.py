"""Hand-made game logs, games and nights, built by the games' own rules: shared by the
tests and the bench (which never imports tests/).

A log is a list of events as the app records them (``ev``); a game is its number, kind,
setup, state (the rules' ``replay`` of the log) and events, as ``stats`` and the store
take it; ``store_game`` records one in a night as the host's forms would, ``play`` as the
night's host. A night is made through the real routes (``make_night``). The figures
worked out by hand beside each are what the tally, statistics, awards and export tests
expect of them.
"""

import json
import random
import re
from dataclasses import dataclass, field

from companion import store
from companion.crazytime import rules as ct
from companion.kraken import rules as kr
from companion.skullking import rules as sk
from companion.store.connection import get_db, now

NAMES = ["민수", "Jo", "지혜 🙂", "Ann", "박서준"]


# --- a night made through the real routes, and a game stored in it ---------------------

@dataclass
class Night:
    """A night made through the real routes: the host's client, its key, the seat links."""

    app: object
    host: object
    key: str
    tokens: list = field(default_factory=list)

    @property
    def url(self):
        return f"/n/{self.key}"

    def phone(self, position):
        """A new phone that scans seat ``position``'s QR and answers "yes, it's me"."""
        phone = self.app.test_client()
        assert phone.get(f"/s/{self.tokens[position]}").status_code == 200
        response = phone.post(f"/s/{self.tokens[position]}")
        assert response.status_code == 303, response.data
        return phone

    def start(self, kind, **form):
        """Start a game through the real start form; returns the game's page URL. While
        another game runs on the phones, it answers the form's second step as a host
        would ("start it; that game stays unfinished"): tests of that question post the
        form themselves."""
        url = f"{self.url}/new/{kind}"
        response = self.host.post(url, data=form)
        running = re.search(r'name="leave" value="(\d+)"', response.data.decode())
        if response.status_code == 409 and running:
            response = self.host.post(url, data={**form, "leave": running.group(1)})
        assert response.status_code == 303, response.data.decode()[:2000]
        return response.headers["Location"]

    def pos(self, game_url):
        """The game's log position now, which its host's page shows and its forms send
        back (tests/test_fresh_answers.py reads it on the page): read from the store,
        for drawing the whole page to read one number cost some 3 ms a form, about 3 s
        of the quick loop's CPU."""
        number = int(game_url.rstrip("/").rsplit("/", 1)[1])
        with self.app.test_request_context():
            return store.game(store.night_by_key(self.key)["id"], number).pos


def make_night(app, names=NAMES):
    """A night of ``names`` made by a new host's client through the start page's form."""
    host = app.test_client()
    response = host.post("/nights", data={"name": list(names)})
    assert response.status_code == 303
    key = response.headers["Location"].rsplit("/", 1)[1]
    with app.test_request_context():
        night = store.night_by_key(key)
        tokens = [s["token"] for s in store.seats(night["id"])]
    return Night(app=app, host=host, key=key, tokens=tokens)


def store_game(app, device, key, game):
    """Store a hand-made game of night ``key`` (its setup as made, e.g. a known deal) and
    record its events one by one through store.record, as the host's forms would."""
    with app.test_request_context(headers={"Cookie": f"device={device}"}):
        row = store.night_by_key(key)
        number = len(store.games(row["id"])) + 1
        get_db()["games"].insert({
            "night_id": row["id"], "number": number, "kind": game["kind"],
            "setup": json.dumps(game["setup"], sort_keys=True), "created": now()})
        current = store.game(row["id"], number)
        for event in game["events"]:
            current = store.record(current, event["type"], event["data"], pos=current.pos,
                                   device=device, seat=event["seat"])
        return current


def ev(type_, by=None, **data):
    """An event with its data; ``by`` is the phone's seat that sent it (None: the host)."""
    return {"type": type_, "data": data, "seat": by}


# --- No Touch Kraken -------------------------------------------------------------------

def kraken_setup(roles, series=None):
    """A Kraken game for seats 0..n-1 with the roles dealt by hand (n = len(roles))."""
    setup = kr.start(list(range(len(roles))), {"series": series}, rng=random.Random(1))
    cards = [*setup["roles"].values(), *setup["unused_roles"]]
    for role in roles:
        cards.remove(role)
    setup["roles"] = {str(seat): role for seat, role in enumerate(roles)}
    setup["unused_roles"] = cards
    return setup


def kraken_kraken_first():
    """Seat 0 takes the marker and reveals seat 1's card: the Kraken. Skeletons win."""
    return [ev("marker", seat=0), ev("reveal", seat=1, card="kraken", special=None)]


def kraken_all_treasure():
    """Three players find the three Treasures in the first three reveals: Explorers win."""
    return [ev("marker", seat=0),
            ev("reveal", seat=1, card="treasure", special=None),
            ev("reveal", seat=2, card="treasure", special=None),
            ev("reveal", seat=0, card="treasure", special=None)]


def kraken_game(number, roles, events, series=None):
    setup = kraken_setup(roles, series)
    return {"number": number, "kind": "kraken", "setup": setup,
            "state": kr.replay(setup, events), "events": events}


# --- Skull King ------------------------------------------------------------------------

def skullking_events(bids, won):
    """One game of custom rounds: per round the bids and tricks won, {seat: n}."""
    events = []
    for number, (round_bids, round_won) in enumerate(zip(bids, won, strict=True), 1):
        for seat, bid in round_bids.items():
            events.append(ev("bid", seat=seat, round=number, bid=bid))
        events.append(ev("reveal_bids", round=number))
        events.append(ev("result", round=number,
                         results={str(s): {"won": n} for s, n in round_won.items()}))
    return events


def skullking_game(number, players, rounds, bids, won):
    setup = sk.start(players, {"way": "custom", "rounds": rounds})
    events = skullking_events(bids, won)
    return {"number": number, "kind": "skullking", "setup": setup,
            "state": sk.replay(setup, events), "events": events}


# Skull King, custom rounds of 1 and 2 cards, seats 0, 1, 2:
# round 1: bids 1, 0, 0; won 1, 0, 0 → 20, 10, 10
# round 2: bids 2, 0, 1; won 1, 0, 1 → -10, 20, 20   totals 10, 30, 30 (1 and 2 share first)
SK_BIDS = [{0: 1, 1: 0, 2: 0}, {0: 2, 1: 0, 2: 1}]
SK_WON = [{0: 1, 1: 0, 2: 0}, {0: 1, 1: 0, 2: 1}]


def skullking_hand(number=1):
    return skullking_game(number, [0, 1, 2], [1, 2], SK_BIDS, SK_WON)


# --- Crazy Time ------------------------------------------------------------------------

def crazytime_events(matches, law_texts=("When a 5", "Say hello")):
    """Four matches given as penalties per seat; a law and the next match in between."""
    events = [ev("rabbit", seat=3)]
    for index, penalties in enumerate(matches, 1):
        for seat, count in penalties.items():
            events += [ev("penalty", seat=seat, reason="wrong_call")] * count
        if index < 4 and index < len(matches):
            events.append(ev("law", name=f"Law {index}", when=law_texts[0],
                             what=law_texts[1]))
            events.append(ev("next_match"))
    return events


# Hand tally: hours 1h (seat 0), 2h (seat 1), 3h (seat 0) → seat 0 4h, seat 1 2h.
# Match 4 penalties 5, 5, 1, 1 → scores -1, -3, -1, -1; the tie at -1 goes to fewer
# match-4 penalties: seats 2 and 3 share first, seat 0 third, seat 1 fourth.
CT_MATCHES = [{0: 0, 1: 4, 2: 4, 3: 4}, {0: 4, 1: 0, 2: 4, 3: 4},
              {0: 0, 1: 4, 2: 4, 3: 4}, {0: 5, 1: 5, 2: 1, 3: 1}]


def crazytime_game(number, matches=CT_MATCHES, players=(0, 1, 2, 3)):
    setup = ct.start(list(players), {})
    events = crazytime_events(matches)
    return {"number": number, "kind": "crazytime", "setup": setup,
            "state": ct.replay(setup, events), "events": events}


# --- a Skull King game of four rounds for the awards, and games of one card ------------

# Skull King, seats 0, 1, 2, custom rounds of 1, 2, 3 and 1 cards (bids, then tricks):
# round 1: bids 0, 0, 1  won 0, 0, 1  → all three exact
# round 2: bids 0, 1, 1  won 0, 2, 0  → Ann exact (a zero made)
# round 3: bids 0, 2, 0  won 0, 2, 1  → Ann and Bo exact (Cy's zero fails)
# round 4: bids 1, 0, 0  won 0, 1, 0  → Cy exact (Bo's zero fails)
# Exact bids: Ann 3, Bo 2, Cy 2. Zero bids made in a row: Ann 3 (rounds 1–3), Bo 1, Cy 1.
SK_NIGHT_ROUNDS = [1, 2, 3, 1]
SK_NIGHT_BIDS = [{0: 0, 1: 0, 2: 1}, {0: 0, 1: 1, 2: 1}, {0: 0, 1: 2, 2: 0}, {0: 1, 1: 0, 2: 0}]
SK_NIGHT_WON = [{0: 0, 1: 0, 2: 1}, {0: 0, 1: 2, 2: 0}, {0: 0, 1: 2, 2: 1}, {0: 0, 1: 1, 2: 0}]


def sk_night_game(number=1):
    return skullking_game(number, [0, 1, 2], SK_NIGHT_ROUNDS, SK_NIGHT_BIDS, SK_NIGHT_WON)


def sk_one_card(number, bids, won):
    """A one-round game of one card."""
    return skullking_game(number, [0, 1, 2], [1], [bids], [won])


# --- each kind played to the end, for the random walks of the kept-results tests -------

#: Per kind: its players, options and a log that plays it to the end.
WHOLE_GAMES = {
    "kraken": ([0, 1, 2], {}, kraken_kraken_first() + [
        {"type": "reveal", "data": {"seat": 2, "card": "treasure", "special": None},
         "seat": None}]),
    "kraken-treasure": ([0, 1, 2], {}, kraken_all_treasure()),
    "skullking": ([0, 1, 2], {"way": "custom", "rounds": [1, 2]},
                  skullking_events([{0: 1, 1: 0, 2: 1}, {0: 2, 1: 0, 2: 0}],
                                   [{0: 1, 1: 0, 2: 0}, {0: 1, 1: 0, 2: 1}])),
    "crazytime": ([0, 1, 2, 3], {}, crazytime_events(CT_MATCHES)),
}


def random_correction(rng, state):
    """A Skull King correction of a scored round, with random tricks (may be refused)."""
    scored = [r for r in state.get("rounds", []) if r.get("results")]
    if not scored:
        return None
    rnd = rng.choice(scored)
    seats = list(rnd["results"])
    return {"round": rnd["number"],
            "bids": {s: rng.randint(0, rnd["cards"]) for s in seats},
            "results": {s: {"won": rng.randint(0, rnd["cards"])} for s in seats}}


# --- a night of such games, stored as its host's device --------------------------------

def play(app, night, game):
    """Store a hand-made game in ``night`` as its host's device."""
    return store_game(app, night.host.get_cookie("device").value, night.key, game)


ROLES = ["explorer", "skeleton", "explorer"]


def play_evening(app, night):
    """A Kraken series of three (seat 1, the Skeleton, wins it), a Skull King game
    (seats 0-2), a Crazy Time game (seats 0-3), then a Kraken game left running (game
    6, returned)."""
    for number in (1, 2, 3):
        play(app, night, kraken_game(number, ROLES, kraken_kraken_first(), "s"))
    play(app, night, skullking_hand(4))
    play(app, night, crazytime_game(5))
    return play(app, night, kraken_game(6, ["skeleton", "explorer", "explorer"],
                                        kraken_all_treasure()[:2]))
