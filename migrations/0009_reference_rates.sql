CREATE TABLE `reference_rates` (
	`currency` text NOT NULL,
	`date` text NOT NULL,
	`per_eur` text NOT NULL,
	`imported_at` text NOT NULL,
	PRIMARY KEY(`currency`, `date`)
);
--> statement-breakpoint
DROP INDEX `actions_owner_v1`;--> statement-breakpoint
CREATE INDEX `actions_owner_v1` ON `actions` (`owner`,`effective_at`,`id`,`v1_kind`) WHERE v1_kind IS NOT NULL;--> statement-breakpoint
CREATE INDEX `journal_owner_effective` ON `journal` (`owner`,`effective_at`,`id`);
