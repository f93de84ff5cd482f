-- Rows placed in key order (docs/storage.md#rows-placed-in-key-order): no table changes shape. The
-- rows of actions, portfolios and yields move to their places in key order, each chosen as a new
-- row's is (src/ledger/sql/placement.ts); the data step of this migration (src/ledger/upgrades.ts)
-- moves them, in this migration's transaction. SQLite's alone.
SELECT 1;
