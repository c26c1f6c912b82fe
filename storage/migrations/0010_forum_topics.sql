-- A forum supergroup holds a table per topic: a match remembers the topic (message_thread_id) it is played in,
-- so a restart resumes it there. NULL: the General topic, or a group without topics (every older match).
ALTER TABLE matches ADD COLUMN thread_id INTEGER;
