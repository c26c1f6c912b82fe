-- One table a person across workers (bot.cluster): the table each person sits at, claimed when they sit down
-- (its user_id the key: a second table cannot claim them), kept in step with the tables by their shard's owner
-- (storage.seated). One process keeps it in memory (bot.table.one_table) and leaves this table empty.
CREATE TABLE seated (
    user_id    INTEGER PRIMARY KEY,
    chat_id    INTEGER NOT NULL,
    thread_id  INTEGER NOT NULL,  -- the forum topic, 0 for none
    shard      INTEGER NOT NULL,
    title      TEXT    NOT NULL,
    claimed_at TEXT    NOT NULL
);
CREATE INDEX seated_by_shard ON seated (shard);
