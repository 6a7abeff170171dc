"""Crazy Time logs event by event, as the app records them: penalties, laws, the rabbit,
and a whole blue game worked out by hand (``full_game``), for the rules tests and for the
pages that show a game in those states."""

from companion.crazytime.rules import start

FIVE = [0, 1, 2, 3, 4]
FOUR = [0, 1, 2, 3]


def ev(kind, sender=None, **data):
    """An event; ``sender`` is the seat of the phone that sent it (None: the host)."""
    return {"type": kind, "data": data, "seat": sender}


def penalty(seat, **data):
    return ev("penalty", seat=seat, **data)


def play_match(counts):
    """Penalty events giving each seat its count (the whole match's tokens)."""
    return [penalty(seat) for seat, n in counts.items() for _ in range(n)]


def law(name, when="When a card shows 6", what="Say moo", sender=None):
    return ev("law", sender=sender, name=name, when=when, what=what)


def learn(law_id, seat):
    return ev("learn", law=law_id, seat=seat)


NEXT = ev("next_match")


def setup(players=FIVE, **options):
    return start(players, options)


# --- a whole game, and the start of one ------------------------------------------------


def full_game():
    """5 players, blue side, one starting law, a law after each of matches 1–3.

    Hand calculation:
      match 1 (6):  0:2 1:2 2:1 3:1 4:0   -> 4 wins 1h            hours 0 0 0 0 1
      match 2 (8):  0:0 1:3 2:3 3:2 4:0   -> 0 and 4 win 2h       hours 2 0 0 0 3
      match 3 (10): 0:3 1:1 2:2 3:1 4:3   -> 1 and 3 win 3h       hours 2 3 0 3 3
      match 4 (12): 0:1 1:2 2:0 3:2 4:7   -> scores 2-1=1 3-2=1 0-0=0 3-2=1 3-7=-4
      places: 0 (score 1, one penalty) first; 1 and 3 (score 1, two penalties each)
      share second; 2 (score 0) third; 4 last.
    """
    return ([ev("rabbit", seat=4), law("Echo", "A card shows 12", "Say echo")]
            + play_match({0: 2, 1: 2, 2: 1, 3: 1, 4: 0})
            + [law("Moon", "A card shows a moon", "Howl", sender=2), learn(2, 4), NEXT]
            + play_match({0: 0, 1: 3, 2: 3, 3: 2, 4: 0})
            + [law("Tide", "The hour hand points down", "Clap"), NEXT]
            + play_match({0: 3, 1: 1, 2: 2, 3: 1, 4: 3})
            + [law("Kettle", "Call 5 o'clock", "Whistle", sender=4), NEXT]
            + play_match({0: 1, 1: 2, 2: 0, 3: 2, 4: 7}))


def after_match_1(*more):
    return play_match({0: 2, 1: 2, 2: 2, 3: 0, 4: 0}) + list(more)
