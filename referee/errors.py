"""The referee's error types. The CLI layer turns each into one line on stderr.

- `RefereeError`: a rule or game-state refusal (exit 1), optionally citing a ruling id.
- `UsageError`: bad usage or input (exit 2).
- `DiceError`: an impossible face or malformed dice expression (a `UsageError`).
- `SessionError`: the session file is missing, corrupt or from another program (exit 2).
"""

from __future__ import annotations


class RefereeError(Exception):
    """A rule or game-state refusal: exit 1. `ruling` is an id like "XS-2" or None."""

    exit_code = 1

    def __init__(self, message: str, ruling: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.ruling = ruling

    def __str__(self) -> str:
        return f"{self.message} ({self.ruling})" if self.ruling else self.message


class UsageError(Exception):
    """Bad usage or input: exit 2."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.ruling: str | None = None

    def __str__(self) -> str:
        return self.message


class DiceError(UsageError):
    """A face the die does not have, or a malformed dice expression."""


class SessionError(UsageError):
    """The session file cannot be used: missing, corrupt, or not a referee session."""
