CREATE TABLE `calendar_tokens` (
	`token_sha256` text PRIMARY KEY NOT NULL,
	`tenant_id` integer NOT NULL,
	`created_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `calendar_tokens_tenant` ON `calendar_tokens` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`type` text NOT NULL,
	`owner` text,
	`body` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `events_tenant_seq` ON `events` (`tenant_id`,`seq`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subscription_id` text NOT NULL,
	`event_seq` integer NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`due_since` text NOT NULL,
	`next_attempt_at` text,
	`lease_until` text,
	`last_attempt_at` text,
	`last_status` integer,
	`last_answer` text,
	FOREIGN KEY (`subscription_id`) REFERENCES `webhook_subscriptions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`event_seq`) REFERENCES `events`(`seq`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription` ON `webhook_deliveries` (`subscription_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_pending` ON `webhook_deliveries` (`subscription_id`,`id`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`next_attempt_at`) WHERE status = 'pending';--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` integer NOT NULL,
	`url` text NOT NULL,
	`events` text,
	`sealed_secrets` text NOT NULL,
	`created_at` text NOT NULL,
	`removed_at` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_tenant` ON `webhook_subscriptions` (`tenant_id`);--> statement-breakpoint
ALTER TABLE `tenant_wallets` ADD `synced_journal_id` integer;--> statement-breakpoint
CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'events is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'events is append-only'); END;
--> statement-breakpoint
-- A wallet already synced has had its books: its next sync sends wallet.synced only for newer entries.
UPDATE tenant_wallets SET synced_journal_id = (SELECT max(id) FROM journal WHERE journal.owner = tenant_wallets.owner) WHERE first_synced_at IS NOT NULL;
