"""No Touch Kraken (노 터치 크라켄): secret roles dealt to phones, the reveals, the end of
the game and the token series (docs/rules.md#kraken)."""
