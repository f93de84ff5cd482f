CREATE TABLE `unbooked_revisions` (
	`event_id` text NOT NULL,
	`payload_sha256` text NOT NULL,
	`noted_at` text NOT NULL,
	PRIMARY KEY(`event_id`, `payload_sha256`)
);
--> statement-breakpoint
CREATE INDEX `unbooked_revisions_noted` ON `unbooked_revisions` (`noted_at`);