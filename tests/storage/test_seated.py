"""One table a person across workers (storage.seated): the database, not a worker's memory, says where a person
sits. A claim for a second table is refused with the first's name, whichever process asks; the shards' owner
keeps the rows as its tables sit (a person who left, a lobby lost with a worker, freed; a fresh claim kept)."""

from __future__ import annotations

from datetime import timedelta

from storage.database import Database
from tests.storage.conftest import Clock


async def test_a_person_claimed_by_one_table_is_refused_by_another(db: Database, backend: str) -> None:
    assert await db.seated.claim(7, -100, 0, 3, "Friday") is None
    assert await db.seated.claim(7, -100, 0, 3, "Friday") is None  # the same table again: theirs still
    assert await db.seated.claim(7, -200, 0, 5, "Saturday") == "Friday"
    assert await db.seated.claim(7, -100, 42, 3, "Friday") == "Friday"  # another topic of the group: another table
    assert await db.seated.claim(8, -200, 42, 5, "Saturday") is None
    assert await db.seated.claim(8, -100, 0, 3, "Friday") == "Saturday · #42"


async def test_the_owner_keeps_its_shards_rows_as_its_tables_sit(postgres_url: str, clock: Clock) -> None:
    """keep is the workers' (PostgreSQL's) alone."""
    async with await Database.open(postgres_url, clock=clock) as db:
        await _kept(db, clock)


async def _kept(db: Database, clock: Clock) -> None:
    assert await db.seated.claim(7, -100, 0, 3, "Friday") is None  # sits at -100 (shard 3)
    assert await db.seated.claim(8, -100, 0, 3, "Friday") is None  # left since
    assert await db.seated.claim(9, -200, 0, 5, "Saturday") is None  # another shard's: not this owner's to touch
    clock.advance(seconds=30)
    assert await db.seated.claim(10, -100, 0, 3, "Friday") is None  # just claimed: its Join may be on its way
    await db.seated.keep(
        {3}, [(7, -100, 0, 3, "Friday"), (11, -300, 0, 3, "Sunday")], before=clock() - timedelta(seconds=10)
    )
    assert await db.seated.claim(8, -200, 0, 5, "Saturday") is None  # freed
    assert await db.seated.claim(9, -100, 0, 3, "Friday") == "Saturday"
    assert await db.seated.claim(10, -200, 0, 5, "Saturday") == "Friday"
    assert await db.seated.claim(11, -100, 0, 3, "Friday") == "Sunday"  # put back: seated there on this worker
    assert await db.seated.claim(7, -200, 0, 5, "Saturday") == "Friday"
