"""Errors every layer may raise; the CLI prints them without a stack trace."""


class UserError(Exception):
    """A mistake in the user's input or configuration (bad file, missing setup, bad option)."""
