"""The life of a table: its state, the pure core that takes its messages, its runner, and the registry of tables."""
