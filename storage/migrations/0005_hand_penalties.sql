-- Flee penalties (RULES.md §10), stored the moment a player flees and settled with the hand they fled from,
-- so a crash between the flight and the end of the hand loses nothing.

CREATE TABLE hand_penalties (
    id         INTEGER PRIMARY KEY,
    hand_id    INTEGER NOT NULL REFERENCES hands (id),
    seat       INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    points     INTEGER NOT NULL,
    created_at TEXT    NOT NULL
);

CREATE INDEX hand_penalties_by_hand ON hand_penalties (hand_id);
