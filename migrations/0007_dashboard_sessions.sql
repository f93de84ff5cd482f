CREATE TABLE `dashboard_sessions` (
	`id_sha256` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `dashboard_sessions_key` ON `dashboard_sessions` (`key_id`);