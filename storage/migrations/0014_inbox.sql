-- The updates that several workers share (bot.cluster, MAHJONG_WORKERS=1 on PostgreSQL; unused on SQLite): the
-- worker that polls stores each update here, once per update_id, before Telegram is told it arrived; the
-- owner of its shard (the table's; NULL: of no table, any worker takes it) handles it and marks it done. A done
-- update's body is emptied at once (nothing said privately is kept); its row is kept two days, as the
-- handled ids are (storage.handled_updates), so an update sent again is still stored once.
CREATE TABLE inbox (
    update_id   INTEGER PRIMARY KEY,
    shard       INTEGER,
    received_at TEXT    NOT NULL,
    body        TEXT    NOT NULL,
    claimed_at  TEXT,
    done_at     TEXT
);
CREATE INDEX inbox_waiting ON inbox (shard, update_id) WHERE done_at IS NULL;
CREATE INDEX inbox_by_done ON inbox (done_at);
