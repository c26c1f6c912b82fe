-- Telegram @usernames, so /stats @name finds a player; NULL for someone without one (or not seen since).
ALTER TABLE players ADD COLUMN username TEXT;
CREATE INDEX players_username ON players (username COLLATE NOCASE) WHERE username IS NOT NULL;
