CREATE TABLE `cost_basis_declarations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`owner` text NOT NULL,
	`payload` text NOT NULL,
	`payload_sha256` text NOT NULL,
	`source` text DEFAULT 'operator' NOT NULL,
	`imported_at` text NOT NULL,
	`row_sha256` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cost_basis_declarations_hash` ON `cost_basis_declarations` (`payload_sha256`);--> statement-breakpoint
CREATE INDEX `cost_basis_declarations_owner` ON `cost_basis_declarations` (`owner`,`id`);--> statement-breakpoint
CREATE INDEX `cost_basis_declarations_unsealed` ON `cost_basis_declarations` (`id`) WHERE row_sha256 IS NULL;--> statement-breakpoint
CREATE TABLE `transaction_changes` (
	`signature` text NOT NULL,
	`owner` text NOT NULL,
	`slot` integer NOT NULL,
	`block_time` integer NOT NULL,
	`signers` text NOT NULL,
	`lamports` text,
	`tokens` text NOT NULL,
	`row_sha256` text,
	PRIMARY KEY(`signature`, `owner`)
);
--> statement-breakpoint
CREATE INDEX `transaction_changes_owner` ON `transaction_changes` (`owner`);--> statement-breakpoint
CREATE INDEX `transaction_changes_unsealed` ON `transaction_changes` (`signature`) WHERE row_sha256 IS NULL;--> statement-breakpoint
-- Observations, append-only as the others (0001, 0008): a row may be sealed once, in the
-- transaction that wrote it; a sealed row refuses every UPDATE; no row is ever deleted.
CREATE TRIGGER transaction_changes_no_update BEFORE UPDATE ON transaction_changes WHEN OLD.row_sha256 IS NOT NULL BEGIN SELECT RAISE(ABORT, 'transaction_changes is append-only'); END;--> statement-breakpoint
CREATE TRIGGER transaction_changes_no_delete BEFORE DELETE ON transaction_changes BEGIN SELECT RAISE(ABORT, 'transaction_changes is append-only'); END;--> statement-breakpoint
CREATE TRIGGER cost_basis_declarations_no_update BEFORE UPDATE ON cost_basis_declarations WHEN OLD.row_sha256 IS NOT NULL BEGIN SELECT RAISE(ABORT, 'cost_basis_declarations is append-only'); END;--> statement-breakpoint
CREATE TRIGGER cost_basis_declarations_no_delete BEFORE DELETE ON cost_basis_declarations BEGIN SELECT RAISE(ABORT, 'cost_basis_declarations is append-only'); END;
