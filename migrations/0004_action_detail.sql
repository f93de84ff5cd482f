ALTER TABLE `actions` ADD `detail` text;--> statement-breakpoint
CREATE INDEX `actions_owner_v1_kind` ON `actions` (`owner`,`v1_kind`);