CREATE TABLE `portfolios` (
	`owner` text PRIMARY KEY NOT NULL,
	`body` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
-- Every booked wallet is booked once again after the upgrade, which stores its portfolio; until
-- then the route renders it per request, as before.
INSERT INTO `dirty_wallets` (`owner`, `seq`, `marked_at`) SELECT `owner`, 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `yields` WHERE true ON CONFLICT DO NOTHING;
