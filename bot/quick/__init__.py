"""Quick match: people from anywhere queue with ``/play`` (``bot.handlers.quick_commands``), and one matchmaker
(``matchmaker.py``; with several workers, the one elected by ``bot.cluster.election``) seats them by rating
(``matching.py``) at a table with no group (``bot.table.key.TableKey.quick``)."""
