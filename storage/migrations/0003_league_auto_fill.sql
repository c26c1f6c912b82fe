-- Whether a league night with fewer than four sign-ups is filled with automatic players (1) or called off (0).

ALTER TABLE leagues ADD COLUMN auto_fill INTEGER NOT NULL DEFAULT 1 CHECK (auto_fill IN (0, 1));
