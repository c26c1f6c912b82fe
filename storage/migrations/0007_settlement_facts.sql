-- Per-seat facts of each settled hand for /stats and the pattern boards (issue 15), written by the closing
-- transaction; week and quarter standings for /top. NULL in a fact column means "not known" (see the backfill).
--   how       how the hand was won (game.melds.WinHow), on every seat's row; NULL: nobody won
--   dealt_in  1: this seat's discard (or robbed 蓄杠) gave the winning tile
--   opened    1: this seat had opened (chi, peng or 冲杠) by the end of the hand
--   patterns  the winner's patterns as bits (storage.stats.PATTERN_BITS, fixed forever); 0 for the others
--   hard      the winner's: 1 hard (硬胡), 0 soft; NULL for the others
--   cap       the hand's cap: 'none', 'capped' or 'golden'; NULL: nobody won
--   tuoguan   how many times the automatic player took this seat over (托管) during the hand

ALTER TABLE settlements ADD COLUMN how TEXT;
ALTER TABLE settlements ADD COLUMN dealt_in INTEGER CHECK (dealt_in IN (0, 1));
ALTER TABLE settlements ADD COLUMN opened INTEGER CHECK (opened IN (0, 1));
ALTER TABLE settlements ADD COLUMN patterns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE settlements ADD COLUMN hard INTEGER CHECK (hard IN (0, 1));
ALTER TABLE settlements ADD COLUMN cap TEXT CHECK (cap IN ('none', 'capped', 'golden'));
ALTER TABLE settlements ADD COLUMN tuoguan INTEGER NOT NULL DEFAULT 0 CHECK (tuoguan >= 0);

-- Backfill from the summary JSON (game.scoring.Settlement.to_json) of hands settled before this migration.
-- Patterns, hard/soft and the cap are stored there. How, who dealt in and who had opened are read from the
-- English breakdown lines ("Seat 2: open ×2 · deal-in ×2 = ..."): exact for won hands. For a hand nobody
-- won nobody dealt in, but who had opened is not stored anywhere: opened stays NULL (unknown) there, and
-- tuoguan counts start at 0.
-- sqlite only (storage.dialect): a backfill in SQLite's JSON functions; PostgreSQL never held older rows.
UPDATE settlements SET
    patterns = (
        SELECT COALESCE(SUM(1 << b.bit), 0)
        FROM json_each(h.summary, '$.patterns') AS p
        JOIN (SELECT 'pi_hu' AS name, 0 AS bit UNION ALL SELECT 'peng_peng_hu', 1 UNION ALL SELECT 'qing_yi_se', 2
              UNION ALL SELECT 'jiang_yi_se', 3 UNION ALL SELECT 'feng_yi_se', 4 UNION ALL SELECT 'quan_qiu_ren', 5
              UNION ALL SELECT 'gang_shang_kai_hua', 6 UNION ALL SELECT 'hai_di_lao', 7
              UNION ALL SELECT 'qiang_gang', 8) AS b ON b.name = p.value
        WHERE settlements.won = 1
    ),
    hard = CASE WHEN settlements.won = 1 THEN 1 - json_extract(h.summary, '$.soft') END,
    cap = json_extract(h.summary, '$.cap'),
    how = CASE
        WHEN EXISTS (SELECT 1 FROM json_each(h.summary, '$.patterns') WHERE value = 'gang_shang_kai_hua')
            THEN 'gang_draw'
        WHEN EXISTS (SELECT 1 FROM json_each(h.summary, '$.patterns') WHERE value = 'hai_di_lao') THEN 'haidi'
        WHEN EXISTS (SELECT 1 FROM json_each(h.summary, '$.patterns') WHERE value = 'qiang_gang') THEN 'rob_gang'
        WHEN EXISTS (SELECT 1 FROM json_each(h.summary, '$.breakdown.en') WHERE value GLOB '*self-draw*')
            THEN 'self_draw'
        ELSE 'discard'
    END,
    dealt_in = EXISTS (
        SELECT 1 FROM json_each(h.summary, '$.breakdown.en')
        WHERE value GLOB 'Seat ' || settlements.seat || '[ :]*'
          AND (value GLOB '*deal-in ×*' OR value GLOB '*robbed kong ×*')
    ),
    opened = EXISTS (
        SELECT 1 FROM json_each(h.summary, '$.breakdown.en')
        WHERE value GLOB 'Seat ' || settlements.seat || '[ :]*'
          AND (value GLOB '*: open ×*' OR value GLOB '*: per-meld doubling*')
    )
FROM hands AS h
WHERE h.id = settlements.hand_id AND h.winner IS NOT NULL AND json_type(h.summary, '$.breakdown.en') = 'array';

UPDATE settlements SET dealt_in = 0
WHERE dealt_in IS NULL AND hand_id IN (SELECT id FROM hands WHERE winner IS NULL);

-- The pattern boards read a chat's wins over a period.
CREATE INDEX settlements_wins_by_chat ON settlements (chat_id, ended_at) WHERE won = 1;

-- Week (from Monday, UTC: 'week:YYYY-MM-DD' names the Monday) and quarter ('quarter:YYYY-Qn') standings for
-- the hands settled so far; the closing transaction keeps them from now on (storage.standings.periods_of).
-- sqlite only (storage.dialect): SQLite's date functions, on rows only SQLite databases held.
INSERT INTO standings (chat_id, period, player_id, points, hands, wins, biggest_win)
SELECT chat_id, period, player_id, SUM(points), COUNT(*), SUM(won), MAX(MAX(points, 0))
FROM (
    SELECT chat_id, 'week:' || date(substr(ended_at, 1, 10), '-6 days', 'weekday 1') AS period, player_id,
           points, won
    FROM settlements WHERE player_id IS NOT NULL
    UNION ALL
    SELECT chat_id, 'quarter:' || substr(ended_at, 1, 4) || '-Q' || ((CAST(substr(ended_at, 6, 2) AS INTEGER) + 2) / 3),
           player_id, points, won
    FROM settlements WHERE player_id IS NOT NULL
)
GROUP BY chat_id, period, player_id;
