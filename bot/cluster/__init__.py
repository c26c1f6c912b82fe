"""Several ``mahjong-bot`` workers sharing one PostgreSQL (MAHJONG_WORKERS=1): shards and their owners
(``worker``), the durable update inbox (``inbox``), the overall write rate shared through Redis (``rate``)."""
