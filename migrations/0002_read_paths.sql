CREATE TABLE `income_totals` (
	`owner` text NOT NULL,
	`mint` text NOT NULL,
	`usd` text NOT NULL,
	`unvalued_events` integer NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`owner`, `mint`)
);
--> statement-breakpoint
DROP INDEX `actions_owner_effective`;--> statement-breakpoint
ALTER TABLE `actions` ADD `v1_kind` text;--> statement-breakpoint
CREATE INDEX `actions_owner_v1` ON `actions` (`owner`,`effective_at`,`id`) WHERE v1_entry IS NOT NULL;--> statement-breakpoint
CREATE INDEX `actions_owner_effective` ON `actions` (`owner`,`effective_at`,`id`);--> statement-breakpoint
CREATE INDEX `journal_reverses` ON `journal` (`reverses_id`);--> statement-breakpoint
UPDATE `actions` SET `v1_kind` = json_extract(`v1_entry`, '$.kind') WHERE `v1_entry` IS NOT NULL;