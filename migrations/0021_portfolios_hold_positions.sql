-- Before positions and income totals are dropped (the next migration): each wallet that has
-- positions but no stored portfolio (not booked since a ledger from before the portfolio read model
-- was upgraded) gets its portfolio rendered from them now, by this migration's data step
-- (src/ledger/upgrades.ts), so the route answers as it did until the wallet is booked again.
SELECT 1;
