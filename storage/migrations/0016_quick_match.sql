-- Quick match (bot.quick) and the rating across all play (storage.ratings, docs/RATING.md).
-- The queue: one row a person waiting, kept across a restart; their waiting message is the outbox's slot
-- "quick" in their private chat (live_messages), edited as the queue moves.
CREATE TABLE quick_queue (
    player_id INTEGER PRIMARY KEY REFERENCES players (id),
    preset    TEXT    NOT NULL,
    wait_s    INTEGER NOT NULL CHECK (wait_s >= 1),   -- after this, empty seats take automatic players
    joined_at TEXT    NOT NULL
);
CREATE INDEX quick_queue_by_age ON quick_queue (joined_at);

-- Each quick table's number n (its key is bot.table.key.TableKey.quick(n)); its match is stored as any table's.
CREATE TABLE quick_tables (
    id         INTEGER PRIMARY KEY,
    created_at TEXT    NOT NULL
);

-- Fair play: the other people of a person's last two quick tables (their ids, sorted, comma-separated).
CREATE TABLE quick_recent (
    player_id INTEGER PRIMARY KEY REFERENCES players (id),
    last      TEXT    NOT NULL,
    earlier   TEXT    NOT NULL
);

-- The rating (openskill's Plackett-Luce): mu and its uncertainty sigma; ordinal = mu - 3 sigma orders everyone.
CREATE TABLE ratings (
    player_id  INTEGER PRIMARY KEY REFERENCES players (id),
    mu         DOUBLE PRECISION NOT NULL,
    sigma      DOUBLE PRECISION NOT NULL,
    ordinal    DOUBLE PRECISION NOT NULL,
    matches    INTEGER NOT NULL CHECK (matches >= 0),
    updated_at TEXT    NOT NULL
);
CREATE INDEX ratings_by_ordinal ON ratings (ordinal);
