"""The shell around the table's pure core (``bot.table``): a runner per table, the edge that carries out its
effects, the registry of every table, resuming them after a restart, and one person at one table."""
