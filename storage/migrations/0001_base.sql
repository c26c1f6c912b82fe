-- The base schema: players, chats, matches and their hands, the action log, settlements and standings.
-- Times are UTC ISO-8601 text of fixed width ('2026-11-29T11:32:24.123+00:00'), so text order is time order.
-- An automatic player sits in a seat as player_id NULL with its level in auto_level.

CREATE TABLE players (
    id           INTEGER PRIMARY KEY,          -- the Telegram user id
    display_name TEXT    NOT NULL,
    language     TEXT    NOT NULL,
    skill        INTEGER NOT NULL,
    title        TEXT    NOT NULL,             -- the §10 title (Chinese name) the skill earns
    hands        INTEGER NOT NULL,
    wins         INTEGER NOT NULL,
    biggest_win  INTEGER NOT NULL,             -- the most points won in one hand
    created_at   TEXT    NOT NULL
);

CREATE TABLE chats (
    id             INTEGER PRIMARY KEY,        -- the Telegram chat id
    preset         TEXT    NOT NULL,
    rule_options   TEXT    NOT NULL CHECK (json_valid(rule_options)),
    claim_seconds  INTEGER NOT NULL,
    turn_seconds   INTEGER NOT NULL,
    language       TEXT    NOT NULL,
    auto_players   INTEGER NOT NULL CHECK (auto_players IN (0, 1)),
    auto_level     TEXT    NOT NULL,
    base_unit      INTEGER NOT NULL,
    hands_per_game INTEGER NOT NULL
);

CREATE TABLE matches (
    id            INTEGER PRIMARY KEY,
    chat_id       INTEGER NOT NULL,
    seed          INTEGER NOT NULL,
    rules         TEXT    NOT NULL CHECK (json_valid(rules)),
    hands_planned INTEGER NOT NULL,
    status        TEXT    NOT NULL CHECK (status IN ('running', 'done', 'abandoned')),
    started_at    TEXT    NOT NULL,
    ended_at      TEXT
);

CREATE TABLE match_seats (
    match_id   INTEGER NOT NULL REFERENCES matches (id),
    seat       INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    player_id  INTEGER REFERENCES players (id),
    auto_level TEXT,
    total      INTEGER NOT NULL,               -- the running total of this seat's payments
    PRIMARY KEY (match_id, seat),
    UNIQUE (match_id, player_id),
    CHECK ((player_id IS NULL) = (auto_level IS NOT NULL))
) WITHOUT ROWID;

CREATE TABLE hands (
    id         INTEGER PRIMARY KEY,
    match_id   INTEGER NOT NULL REFERENCES matches (id),
    hand_no    INTEGER NOT NULL CHECK (hand_no >= 1),
    seed       INTEGER NOT NULL,
    dealer     INTEGER NOT NULL CHECK (dealer BETWEEN 0 AND 3),
    rules      TEXT    NOT NULL CHECK (json_valid(rules)),
    status     TEXT    NOT NULL CHECK (status IN ('playing', 'done', 'abandoned')),
    started_at TEXT    NOT NULL,
    ended_at   TEXT,
    winner     INTEGER CHECK (winner BETWEEN 0 AND 3),
    summary    TEXT    CHECK (summary IS NULL OR json_valid(summary)),
    UNIQUE (match_id, hand_no)
);

-- Who sat where in this hand (copied from the match when the hand starts).
CREATE TABLE hand_seats (
    hand_id    INTEGER NOT NULL REFERENCES hands (id),
    seat       INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    player_id  INTEGER REFERENCES players (id),
    auto_level TEXT,
    PRIMARY KEY (hand_id, seat),
    CHECK ((player_id IS NULL) = (auto_level IS NOT NULL))
) WITHOUT ROWID;

-- The action log: the engine's serialised actions, numbered from 0 in the order they were applied.
CREATE TABLE actions (
    hand_id INTEGER NOT NULL REFERENCES hands (id),
    seq     INTEGER NOT NULL CHECK (seq >= 0),
    action  TEXT    NOT NULL CHECK (json_valid(action)),
    PRIMARY KEY (hand_id, seq)
) WITHOUT ROWID;

-- One row per seat per settled hand, written in the transaction that closes the hand.
CREATE TABLE settlements (
    hand_id      INTEGER NOT NULL REFERENCES hands (id),
    seat         INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    player_id    INTEGER REFERENCES players (id),
    chat_id      INTEGER NOT NULL,
    ended_at     TEXT    NOT NULL,
    points       INTEGER NOT NULL,
    won          INTEGER NOT NULL CHECK (won IN (0, 1)),
    skill_before INTEGER,                      -- NULL for an automatic player
    skill_after  INTEGER,
    PRIMARY KEY (hand_id, seat)
) WITHOUT ROWID;

-- Running leaderboard figures per chat, period and player, kept by the hand-closing transaction so a
-- leaderboard is a read of a few rows. period: 'all', 'month:YYYY-MM' (UTC), 'league:<id>:<season>'.
CREATE TABLE standings (
    chat_id     INTEGER NOT NULL,
    period      TEXT    NOT NULL,
    player_id   INTEGER NOT NULL REFERENCES players (id),
    points      INTEGER NOT NULL,
    hands       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    biggest_win INTEGER NOT NULL,
    PRIMARY KEY (chat_id, period, player_id)
) WITHOUT ROWID;
