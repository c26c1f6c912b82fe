-- Every update the bot has taken up, by Telegram's update_id: one Telegram sends again (a webhook retry, a
-- crash before the polling offset was confirmed) is recognised and skipped, so none is handled twice.
-- Kept two days (Telegram keeps an unconfirmed update one day; after a week without updates it may start
-- its ids afresh, and old ids must not hide new updates then).
CREATE TABLE handled_updates (
    update_id  INTEGER PRIMARY KEY,
    handled_at TEXT    NOT NULL
);
CREATE INDEX handled_updates_by_time ON handled_updates (handled_at);
