-- Verifiable deals and share codes (issue 15).
-- salt: hashed with the hand's seed into commitment (game.verify.commitment), shown at the deal; the salt and
-- seed stay secret until the hand is settled. NULL for hands dealt before this migration.
-- share_code: given to a hand in the transaction that settles it (status 'done'), for /replay.

ALTER TABLE hands ADD COLUMN salt TEXT;
ALTER TABLE hands ADD COLUMN commitment TEXT;
ALTER TABLE hands ADD COLUMN share_code TEXT;

CREATE UNIQUE INDEX hands_by_share_code ON hands (share_code) WHERE share_code IS NOT NULL;
