"""A minimal fourth game, defined only here: the proof that a new game is one folder and
one line (docs/adding-a-game.md).

**Secret Number**: each player is dealt a secret number from 1 to ``top``; the host
records who scores a point; a phone can say it is ready; the host can have every card
shown at once, counted on every screen (a synchronised reveal: one ``GameDef`` field);
the host ends the game, and the most points win. A player's number is a secret until the
end, like a Kraken role.
"""
