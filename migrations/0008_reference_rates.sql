CREATE TABLE `reference_rates` (
	`currency` text NOT NULL,
	`date` text NOT NULL,
	`per_eur` text NOT NULL,
	`imported_at` text NOT NULL,
	PRIMARY KEY(`currency`, `date`)
);
--> statement-breakpoint
CREATE INDEX `journal_owner_effective` ON `journal` (`owner`,`effective_at`,`id`);