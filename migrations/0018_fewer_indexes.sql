DROP INDEX `actions_owner_v1`;--> statement-breakpoint
DROP INDEX `actions_owner_v1_kind`;--> statement-breakpoint
DROP INDEX `actions_owner_effective`;--> statement-breakpoint
CREATE INDEX `actions_owner_effective` ON `actions` (`owner`,`effective_at`,`id`,`v1_kind`);--> statement-breakpoint
DROP INDEX `journal_owner`;