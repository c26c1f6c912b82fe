-- A restart resumes a table as it was: who opened it (the one who may /stop it besides admins; 0 for nobody's
-- table, a league night's) and what it is called in its players' private messages (the group's title, and the
-- topic's name in a forum), so the resume asks Telegram nothing before polling starts.
-- NULL in every older match: the first human seat may /stop it, and the title is fetched after start-up.
ALTER TABLE matches ADD COLUMN creator_id INTEGER;
ALTER TABLE matches ADD COLUMN title TEXT;
