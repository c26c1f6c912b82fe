-- The bot's live message of each chat's slot (a player's hand message, the group's table picture, ...), so that
-- after a restart the bot edits those messages in place instead of leaving them beside new ones.
CREATE TABLE live_messages (
    chat_id    INTEGER NOT NULL,
    slot       TEXT    NOT NULL,
    message_id INTEGER NOT NULL,
    is_photo   INTEGER NOT NULL,
    PRIMARY KEY (chat_id, slot)
);
