-- Leagues, their nights and sign-ups; matches may belong to a league night; indexes for the read paths.

CREATE TABLE leagues (
    id            INTEGER PRIMARY KEY,
    chat_id       INTEGER NOT NULL,
    name          TEXT    NOT NULL,
    weekdays      TEXT    NOT NULL CHECK (json_valid(weekdays)),  -- JSON list, 0 = Monday … 6 = Sunday
    start_time    TEXT    NOT NULL,                               -- 'HH:MM' in time_zone
    time_zone     TEXT    NOT NULL,                               -- an IANA name, e.g. 'Asia/Shanghai'
    night_hands   INTEGER CHECK (night_hands > 0),
    night_minutes INTEGER CHECK (night_minutes > 0),
    rules         TEXT    NOT NULL CHECK (json_valid(rules)),
    status        TEXT    NOT NULL CHECK (status IN ('active', 'paused', 'ended')),
    season        INTEGER NOT NULL CHECK (season >= 1),
    created_at    TEXT    NOT NULL,
    UNIQUE (chat_id, name),
    CHECK ((night_hands IS NULL) != (night_minutes IS NULL))
);

-- A night exists once per (league, start): scheduling twice finds the same row, and its status only moves
-- forward, so a night never starts twice.
CREATE TABLE league_nights (
    id        INTEGER PRIMARY KEY,
    league_id INTEGER NOT NULL REFERENCES leagues (id),
    season    INTEGER NOT NULL,
    starts_at TEXT    NOT NULL,
    status    TEXT    NOT NULL
        CHECK (status IN ('scheduled', 'announced', 'reminded', 'running', 'done', 'called_off')),
    UNIQUE (league_id, starts_at)
);

CREATE TABLE league_signups (
    night_id     INTEGER NOT NULL REFERENCES league_nights (id),
    player_id    INTEGER NOT NULL REFERENCES players (id),
    signed_up_at TEXT    NOT NULL,
    PRIMARY KEY (night_id, player_id)
) WITHOUT ROWID;

ALTER TABLE matches ADD COLUMN league_night_id INTEGER REFERENCES league_nights (id);

CREATE INDEX league_nights_open ON league_nights (starts_at) WHERE status NOT IN ('done', 'called_off');
CREATE INDEX hands_playing ON hands (id) WHERE status = 'playing';
CREATE INDEX settlements_by_player ON settlements (player_id, ended_at);
CREATE INDEX matches_running ON matches (chat_id) WHERE status = 'running';
