"""``python -m bot``: run the bot (see bot.app)."""

from bot.app import main

if __name__ == "__main__":
    main()
