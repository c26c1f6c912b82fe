"""Playing at a table: the TableManager, the table's state, its timers, resuming, the callback codec."""
