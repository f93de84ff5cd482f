-- Positions and income totals clustered by their key (docs/storage.md#rows-clustered-by-wallet):
-- WITHOUT ROWID tables keep a wallet's rows together in (owner, mint) order, so booking's chunks,
-- taken in owner order, rewrite contiguous pages, and the separate index of each key goes.
-- drizzle-kit does not model WITHOUT ROWID: this migration is written by hand, and a table rebuild
-- drizzle-kit ever generates for either table must keep it.
CREATE TABLE `__new_positions` (
	`owner` text NOT NULL,
	`mint` text NOT NULL,
	`payload` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`owner`, `mint`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_positions` (`owner`, `mint`, `payload`, `updated_at`) SELECT `owner`, `mint`, `payload`, `updated_at` FROM `positions` ORDER BY `owner`, `mint`;--> statement-breakpoint
DROP TABLE `positions`;--> statement-breakpoint
ALTER TABLE `__new_positions` RENAME TO `positions`;--> statement-breakpoint
CREATE TABLE `__new_income_totals` (
	`owner` text NOT NULL,
	`mint` text NOT NULL,
	`usd` text NOT NULL,
	`unvalued_events` integer NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`owner`, `mint`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_income_totals` (`owner`, `mint`, `usd`, `unvalued_events`, `updated_at`) SELECT `owner`, `mint`, `usd`, `unvalued_events`, `updated_at` FROM `income_totals` ORDER BY `owner`, `mint`;--> statement-breakpoint
DROP TABLE `income_totals`;--> statement-breakpoint
ALTER TABLE `__new_income_totals` RENAME TO `income_totals`;
