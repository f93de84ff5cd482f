CREATE TABLE `owner_scans` (
	`owner` text NOT NULL,
	`signature` text NOT NULL,
	PRIMARY KEY(`owner`, `signature`)
);
--> statement-breakpoint
ALTER TABLE `instruments` ADD `source` text DEFAULT 'xstocks' NOT NULL;--> statement-breakpoint
ALTER TABLE `instruments` ADD `uri` text;--> statement-breakpoint
ALTER TABLE `issuer_revisions` ADD `source` text DEFAULT 'xstocks' NOT NULL;--> statement-breakpoint
ALTER TABLE `issuer_revisions` ADD `mint` text;--> statement-breakpoint
CREATE INDEX `issuer_revisions_mint` ON `issuer_revisions` (`mint`);--> statement-breakpoint
ALTER TABLE `walk_cursors` ADD `newest_slot` integer;
--> statement-breakpoint
-- Changes of mints no issuer feed lists now say so, and token-2022 metadata names them: every
-- mint is booked once again after the upgrade (its wallets follow).
INSERT INTO `dirty_mints` (`mint`, `seq`, `marked_at`) SELECT DISTINCT `mint`, 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `token_accounts` WHERE true ON CONFLICT DO NOTHING;--> statement-breakpoint
-- The seals of instruments and issuer revisions now cover their new columns: those rows are
-- sealed again at the next start (or the next write).
UPDATE `instruments` SET `row_sha256` = NULL;--> statement-breakpoint
DROP TRIGGER issuer_revisions_no_update;--> statement-breakpoint
UPDATE `issuer_revisions` SET `row_sha256` = NULL;--> statement-breakpoint
CREATE TRIGGER issuer_revisions_no_update BEFORE UPDATE ON issuer_revisions WHEN OLD.row_sha256 IS NOT NULL BEGIN SELECT RAISE(ABORT, 'issuer_revisions is append-only'); END;
