-- @usernames are compared case-blind as lower(username), which PostgreSQL and SQLite both speak (SQLite's
-- COLLATE NOCASE is its own): the index follows the comparison.
DROP INDEX players_username;
CREATE INDEX players_username ON players (lower(username)) WHERE username IS NOT NULL;
