"""The night's results and the long run: the night's tally and BG Stats (``views``),
history and statistics across nights (``statistics``), and a night as a file, exported
and imported (``files``)."""
