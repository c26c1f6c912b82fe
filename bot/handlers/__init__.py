"""The Telegram handlers, one module per command family: thin ``async def``s registered in ``bot.app``."""
