CREATE TABLE `census_instances` (
	`transition_key` text PRIMARY KEY NOT NULL,
	`mint` text NOT NULL,
	`type` text NOT NULL,
	`event_id` text NOT NULL,
	`version` integer NOT NULL,
	`reconciled` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `census_instances_mint` ON `census_instances` (`mint`);--> statement-breakpoint
CREATE INDEX `census_instances_type` ON `census_instances` (`type`);--> statement-breakpoint
CREATE TABLE `dirty_mints` (
	`mint` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`marked_at` text NOT NULL,
	`not_before` text
);
--> statement-breakpoint
CREATE TABLE `dirty_wallets` (
	`owner` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`marked_at` text NOT NULL,
	`not_before` text
);
--> statement-breakpoint
CREATE TABLE `mint_schedule` (
	`mint` text PRIMARY KEY NOT NULL,
	`next_activation_ts` integer,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `walk_cursors` (
	`scope` text NOT NULL,
	`address` text NOT NULL,
	`newest_signature` text,
	`resume_before` text,
	`resume_until` text,
	`resume_newest` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`scope`, `address`)
);
--> statement-breakpoint
ALTER TABLE `feed_status` ADD `degraded` text;--> statement-breakpoint
ALTER TABLE `sync_jobs` ADD `next_sync_at` text;--> statement-breakpoint
ALTER TABLE `sync_jobs` ADD `deadline_passed_at` text;--> statement-breakpoint
CREATE INDEX `sync_jobs_next_sync` ON `sync_jobs` (`next_sync_at`);--> statement-breakpoint
ALTER TABLE `tenant_wallets` ADD `first_synced_at` text;--> statement-breakpoint
CREATE INDEX `balance_changes_mint` ON `balance_changes` (`mint`,`owner`);--> statement-breakpoint
CREATE INDEX `token_accounts_mint` ON `token_accounts` (`mint`,`owner`);