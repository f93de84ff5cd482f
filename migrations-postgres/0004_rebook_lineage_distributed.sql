-- Lineage links say what a spin-off or rights distribution distributed (rights distributions have
-- their own link kind, and each distribution its own share of the basis), and an action shows the
-- link it wrote: every booked mint is booked once again after the upgrade, which re-derives its
-- lineage and marks the wallets holding it, whose actions are then re-derived. Until then `verify`
-- leaves the marked rows out, as it does any booking that waits.
INSERT INTO "dirty_mints" ("mint", "seq", "marked_at") SELECT "mint", 1, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') FROM "mint_schedule" ON CONFLICT DO NOTHING;
