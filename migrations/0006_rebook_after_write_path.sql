DROP TABLE `sync_cursors`;--> statement-breakpoint
-- Data carried over to the incremental write path. Validation left the stored actions and the
-- census is now kept per mint, so every wallet and mint is booked once again after the upgrade.
INSERT INTO `dirty_wallets` (`owner`, `seq`, `marked_at`) SELECT DISTINCT `owner`, 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `tenant_wallets` WHERE true ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO `dirty_mints` (`mint`, `seq`, `marked_at`) SELECT DISTINCT `mint`, 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `token_accounts` WHERE true ON CONFLICT DO NOTHING;--> statement-breakpoint
DELETE FROM `ledger_state` WHERE `key` = 'replay_pending';--> statement-breakpoint
-- A tenant that already had a finished sync keeps seeing its books, and is followed from now on.
UPDATE `tenant_wallets` SET `first_synced_at` = (SELECT `finished_at` FROM `sync_jobs` j WHERE j.`tenant_id` = `tenant_wallets`.`tenant_id` AND j.`owner` = `tenant_wallets`.`owner` AND j.`status` IN ('complete', 'partial'));--> statement-breakpoint
UPDATE `sync_jobs` SET `next_sync_at` = `finished_at` WHERE `status` IN ('complete', 'partial', 'failed');
