-- The sync's keys stored once (docs/storage.md#the-syncs-keys-stored-once): `owner_scans` is
-- nothing but its key (owner, signature), and `walk_cursors` is read by its key alone, so as rowid
-- tables each row was stored twice, in the table and again in the index of its key. WITHOUT ROWID
-- tables are their key's index. drizzle-kit does not model WITHOUT ROWID: this migration is
-- written by hand, and a table rebuild drizzle-kit ever generates for either table must keep it.
-- The columns keep the order the tables had (walk_cursors' newest_slot was added last).
CREATE TABLE `__new_owner_scans` (
	`owner` text NOT NULL,
	`signature` text NOT NULL,
	PRIMARY KEY(`owner`, `signature`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_owner_scans` (`owner`, `signature`) SELECT `owner`, `signature` FROM `owner_scans` ORDER BY `owner`, `signature`;--> statement-breakpoint
DROP TABLE `owner_scans`;--> statement-breakpoint
ALTER TABLE `__new_owner_scans` RENAME TO `owner_scans`;--> statement-breakpoint
CREATE TABLE `__new_walk_cursors` (
	`scope` text NOT NULL,
	`address` text NOT NULL,
	`newest_signature` text,
	`resume_before` text,
	`resume_until` text,
	`resume_newest` text,
	`updated_at` text NOT NULL,
	`newest_slot` integer,
	PRIMARY KEY(`scope`, `address`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_walk_cursors` (`scope`, `address`, `newest_signature`, `newest_slot`, `resume_before`, `resume_until`, `resume_newest`, `updated_at`)
  SELECT `scope`, `address`, `newest_signature`, `newest_slot`, `resume_before`, `resume_until`, `resume_newest`, `updated_at` FROM `walk_cursors` ORDER BY `scope`, `address`;--> statement-breakpoint
DROP TABLE `walk_cursors`;--> statement-breakpoint
ALTER TABLE `__new_walk_cursors` RENAME TO `walk_cursors`;
