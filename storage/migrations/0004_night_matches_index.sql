-- A league night's matches (its results, its match) without scanning every match.

CREATE INDEX matches_by_night ON matches (league_night_id) WHERE league_night_id IS NOT NULL;
