ALTER TABLE `actions` ADD `detail` text;--> statement-breakpoint
CREATE INDEX `actions_owner_v1_kind` ON `actions` (`owner`,`v1_kind`);--> statement-breakpoint
ALTER TABLE `balance_changes` ADD `owner_signed` integer;--> statement-breakpoint
ALTER TABLE `balance_changes` ADD `by_permanent_delegate` integer;