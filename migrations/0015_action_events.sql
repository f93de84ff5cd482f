CREATE TABLE `action_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`sha256` text NOT NULL,
	`mint` text NOT NULL,
	`transition_key` text,
	`record` text NOT NULL,
	`summary` text NOT NULL,
	`detail` text NOT NULL,
	`v1_entry` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `action_events_sha256_unique` ON `action_events` (`sha256`);--> statement-breakpoint
-- Each corporate action stored once (docs/storage.md). The rows of before stay, renamed, until the
-- migration's data step (src/ledger/upgrades.ts) has moved each into the new shape, in this
-- migration's transaction, and dropped them.
DROP INDEX `actions_owner_effective`;--> statement-breakpoint
DROP INDEX `actions_owner_v1`;--> statement-breakpoint
DROP INDEX `actions_owner_v1_kind`;--> statement-breakpoint
ALTER TABLE `actions` RENAME TO `actions_before_events`;--> statement-breakpoint
CREATE TABLE `actions` (
	`id` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`mint` text NOT NULL,
	`type` text NOT NULL,
	`treatment` text NOT NULL,
	`state` text NOT NULL,
	`effective_at` text NOT NULL,
	`usd` text,
	`v1_kind` text,
	`payload_sha256` text NOT NULL,
	`evidence_sha256` text NOT NULL,
	`first_observed_active_at` text,
	`wallet_values` text NOT NULL,
	`event_id` integer NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `action_events`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `actions_owner_effective` ON `actions` (`owner`,`effective_at`,`id`);--> statement-breakpoint
CREATE INDEX `actions_owner_v1` ON `actions` (`owner`,`effective_at`,`id`,`v1_kind`) WHERE v1_kind IS NOT NULL;--> statement-breakpoint
CREATE INDEX `actions_owner_v1_kind` ON `actions` (`owner`,`v1_kind`);--> statement-breakpoint
CREATE INDEX `actions_event` ON `actions` (`event_id`);
