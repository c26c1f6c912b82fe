"""The errors storage raises: each says what was wrong in one short sentence, and nothing was changed."""

from __future__ import annotations


class StorageError(Exception):
    """Base class of every error raised by storage/."""


class SchemaTooNewError(StorageError):
    """The database was written by a newer version of the bot than this one."""


class MigrationError(StorageError):
    """A migration file is misnamed or failed to apply (the database stays at the version before it)."""


class NotFoundError(StorageError, LookupError):
    """An id that names no stored row (a hand, match, player, league or night)."""


class InvalidInputError(StorageError, ValueError):
    """An argument that cannot be stored as given (wrong type, out of range, not JSON)."""


class ActionOrderError(StorageError):
    """An action appended out of order: a duplicate or a gap in the hand's sequence numbers."""


class AlreadyClosedError(StorageError):
    """A write to something that has ended: a settled or abandoned hand, a finished match, a past night."""


class CorruptDataError(StorageError):
    """A stored row that cannot be read back (bad JSON, or rules this code no longer understands)."""


class StorageUnavailableError(StorageError):
    """The database refused a read or a write (locked too long, disk full, read-only, a constraint): the
    transaction was rolled back, nothing was changed, and the same call may succeed once the fault clears."""


class ConstraintError(StorageUnavailableError):
    """PostgreSQL refused a statement for a UNIQUE, CHECK or foreign key constraint (SQLite raises its own
    sqlite3.IntegrityError there: storage.gateway.CONSTRAINT_ERRORS names both)."""


class FencedError(StorageError):
    """A write for a shard's table by a worker that no longer owns the shard (another took it since, storage.
    fencing): refused, nothing was changed; the table is the other worker's now."""
