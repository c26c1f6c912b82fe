-- Fencing for workers sharing PostgreSQL (bot.cluster; unused on SQLite): each shard's owner epoch, raised by
-- every worker that takes the shard. A table's writes check, in their own transaction, that the epoch is still
-- the one their worker took (storage.fencing): a worker that lost a shard without knowing it yet (cut off from
-- the network, its lock gone with its connection) has its writes refused, never crossing the new owner's.
CREATE TABLE shard_owners (
    shard    INTEGER PRIMARY KEY,
    epoch    INTEGER NOT NULL,
    taken_at TEXT    NOT NULL
);
