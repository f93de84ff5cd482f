-- Lineage links say what a spin-off or rights distribution distributed (rights distributions have
-- their own link kind, and each distribution its own share of the basis), and an action shows the
-- link it wrote: every booked mint is booked once again after the upgrade, which re-derives its
-- lineage and marks the wallets holding it, whose actions are then re-derived. Until then `verify`
-- leaves the marked rows out, as it does any booking that waits.
INSERT INTO `dirty_mints` (`mint`, `seq`, `marked_at`) SELECT `mint`, 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `mint_schedule` WHERE true ON CONFLICT DO NOTHING;
