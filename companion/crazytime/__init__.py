"""Crazy Time (크레이지 타임): penalty tokens per match, the winners who leave the room,
and the secret laws (docs/rules.md#crazy-time)."""
