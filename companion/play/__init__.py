"""Playing a game: its page (``views``) and the one action pipeline every game's forms
go through (``actions``)."""
