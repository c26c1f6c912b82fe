"""A table's pure core: its state, the messages it takes, the effects it asks for, its words and its key.
Nothing here does I/O, touches asyncio or Telegram, or reads a clock; the shell that runs it is ``bot.host``."""
