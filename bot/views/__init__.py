"""What each chat is shown: every text, caption, keyboard and picture choice, in the person's language."""
