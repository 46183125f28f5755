"""Senders of the notifications that are not Lichess's: the webhook adapter (``webhook``)."""
