CREATE TABLE `actions` (
	`id` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`mint` text NOT NULL,
	`type` text NOT NULL,
	`treatment` text NOT NULL,
	`state` text NOT NULL,
	`effective_at` text NOT NULL,
	`usd` text,
	`payload` text NOT NULL,
	`summary` text NOT NULL,
	`v1_entry` text,
	`payload_sha256` text NOT NULL,
	`evidence_sha256` text NOT NULL,
	`first_observed_active_at` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `actions_owner_effective` ON `actions` (`owner`,`effective_at`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` integer NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`key_sha256` text NOT NULL,
	`scopes` text NOT NULL,
	`created_at` text NOT NULL,
	`last_used_at` text,
	`revoked_at` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_sha256_unique` ON `api_keys` (`key_sha256`);--> statement-breakpoint
CREATE INDEX `api_keys_tenant` ON `api_keys` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `balance_changes` (
	`signature` text NOT NULL,
	`token_account` text NOT NULL,
	`owner` text NOT NULL,
	`mint` text NOT NULL,
	`slot` integer NOT NULL,
	`block_time` integer NOT NULL,
	`pre_raw` text NOT NULL,
	`post_raw` text NOT NULL,
	PRIMARY KEY(`signature`, `token_account`)
);
--> statement-breakpoint
CREATE INDEX `balance_changes_owner` ON `balance_changes` (`owner`);--> statement-breakpoint
CREATE TABLE `dataset_label` (
	`id` integer PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`description` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `feed_status` (
	`name` text PRIMARY KEY NOT NULL,
	`last_success_at` text,
	`last_error_at` text,
	`last_error` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `instruments` (
	`mint` text PRIMARY KEY NOT NULL,
	`symbol` text NOT NULL,
	`name` text,
	`underlying` text,
	`isin` text,
	`decimals` integer,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `issuer_rejections` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source` text NOT NULL,
	`payload` text NOT NULL,
	`reason` text NOT NULL,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `issuer_revisions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` text NOT NULL,
	`version` integer NOT NULL,
	`symbol` text NOT NULL,
	`payload` text NOT NULL,
	`payload_sha256` text NOT NULL,
	`edited` integer DEFAULT false NOT NULL,
	`ingested_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `issuer_revisions_hash` ON `issuer_revisions` (`event_id`,`version`,`payload_sha256`);--> statement-breakpoint
CREATE INDEX `issuer_revisions_symbol` ON `issuer_revisions` (`symbol`);--> statement-breakpoint
CREATE TABLE `journal` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`owner` text NOT NULL,
	`action_id` text NOT NULL,
	`entry_type` text NOT NULL,
	`reverses_id` integer,
	`mint` text NOT NULL,
	`symbol` text,
	`type` text NOT NULL,
	`treatment` text NOT NULL,
	`kind` text NOT NULL,
	`units_delta` text NOT NULL,
	`principal_units_delta` text NOT NULL,
	`income_units` text NOT NULL,
	`usd` text,
	`factor` text,
	`effective_at` text NOT NULL,
	`change_reason` text,
	`evidence_sha256` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `journal_owner` ON `journal` (`owner`,`id`);--> statement-breakpoint
CREATE INDEX `journal_action` ON `journal` (`action_id`);--> statement-breakpoint
CREATE TABLE `lineage` (
	`mint` text PRIMARY KEY NOT NULL,
	`payload` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `mint_states` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`mint` text NOT NULL,
	`slot` integer NOT NULL,
	`decimals` integer NOT NULL,
	`authority` text,
	`multiplier` text NOT NULL,
	`new_multiplier` text NOT NULL,
	`new_multiplier_effective_ts` integer NOT NULL,
	`observed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mint_states_mint_slot` ON `mint_states` (`mint`,`slot`);--> statement-breakpoint
CREATE TABLE `multiplier_updates` (
	`signature` text NOT NULL,
	`ix_index` integer NOT NULL,
	`mint` text NOT NULL,
	`slot` integer NOT NULL,
	`block_time` integer NOT NULL,
	`multiplier` text NOT NULL,
	`effective_ts` integer NOT NULL,
	`authority` text NOT NULL,
	PRIMARY KEY(`signature`, `ix_index`)
);
--> statement-breakpoint
CREATE INDEX `multiplier_updates_mint` ON `multiplier_updates` (`mint`);--> statement-breakpoint
CREATE TABLE `positions` (
	`owner` text NOT NULL,
	`mint` text NOT NULL,
	`payload` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`owner`, `mint`)
);
--> statement-breakpoint
CREATE TABLE `sync_cursors` (
	`address` text PRIMARY KEY NOT NULL,
	`newest_signature` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sync_jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`owner` text NOT NULL,
	`status` text NOT NULL,
	`requested_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	`lease_until` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_retry_at` text,
	`phase` text,
	`progress_done` integer DEFAULT 0 NOT NULL,
	`progress_total` integer DEFAULT 0 NOT NULL,
	`transactions_fetched` integer DEFAULT 0 NOT NULL,
	`gaps` text DEFAULT '[]' NOT NULL,
	`error` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sync_jobs_tenant_owner` ON `sync_jobs` (`tenant_id`,`owner`);--> statement-breakpoint
CREATE INDEX `sync_jobs_status` ON `sync_jobs` (`status`);--> statement-breakpoint
CREATE TABLE `taxonomy_census` (
	`type` text PRIMARY KEY NOT NULL,
	`payload` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tenant_wallets` (
	`tenant_id` integer NOT NULL,
	`owner` text NOT NULL,
	`registered_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `owner`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tenant_wallets_owner` ON `tenant_wallets` (`owner`);--> statement-breakpoint
CREATE TABLE `tenants` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`slug` text NOT NULL,
	`max_wallets` integer DEFAULT 100 NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tenants_slug_unique` ON `tenants` (`slug`);--> statement-breakpoint
CREATE TABLE `token_accounts` (
	`address` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`mint` text NOT NULL,
	`raw_balance` text NOT NULL,
	`slot` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `token_accounts_owner` ON `token_accounts` (`owner`);--> statement-breakpoint
CREATE TABLE `transitions_seen` (
	`key` text PRIMARY KEY NOT NULL,
	`first_observed_active_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `wallet_gaps` (
	`owner` text NOT NULL,
	`address` text NOT NULL,
	`reason` text NOT NULL,
	`recorded_at` text NOT NULL,
	PRIMARY KEY(`owner`, `address`)
);
--> statement-breakpoint
CREATE TABLE `yields` (
	`owner` text PRIMARY KEY NOT NULL,
	`payload` text NOT NULL,
	`updated_at` text NOT NULL
);
