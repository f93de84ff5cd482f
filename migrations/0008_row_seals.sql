ALTER TABLE `dataset_label` ADD `row_sha256` text;--> statement-breakpoint
CREATE INDEX `dataset_label_unsealed` ON `dataset_label` (`id`) WHERE row_sha256 IS NULL;--> statement-breakpoint
ALTER TABLE `instruments` ADD `row_sha256` text;--> statement-breakpoint
CREATE INDEX `instruments_unsealed` ON `instruments` (`mint`) WHERE row_sha256 IS NULL;--> statement-breakpoint
ALTER TABLE `issuer_revisions` ADD `row_sha256` text;--> statement-breakpoint
CREATE INDEX `issuer_revisions_unsealed` ON `issuer_revisions` (`id`) WHERE row_sha256 IS NULL;--> statement-breakpoint
ALTER TABLE `journal` ADD `row_sha256` text;--> statement-breakpoint
CREATE INDEX `journal_unsealed` ON `journal` (`id`) WHERE row_sha256 IS NULL;--> statement-breakpoint
ALTER TABLE `mint_states` ADD `row_sha256` text;--> statement-breakpoint
CREATE INDEX `mint_states_unsealed` ON `mint_states` (`id`) WHERE row_sha256 IS NULL;--> statement-breakpoint
ALTER TABLE `multiplier_updates` ADD `row_sha256` text;--> statement-breakpoint
CREATE INDEX `multiplier_updates_unsealed` ON `multiplier_updates` (`signature`) WHERE row_sha256 IS NULL;--> statement-breakpoint
-- Append-only tables: a row may be sealed once, in the transaction that wrote it (rows from
-- before this migration at the next start); a sealed row refuses every UPDATE.
DROP TRIGGER journal_no_update;--> statement-breakpoint
CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal WHEN OLD.row_sha256 IS NOT NULL BEGIN SELECT RAISE(ABORT, 'journal is append-only'); END;--> statement-breakpoint
DROP TRIGGER issuer_revisions_no_update;--> statement-breakpoint
CREATE TRIGGER issuer_revisions_no_update BEFORE UPDATE ON issuer_revisions WHEN OLD.row_sha256 IS NOT NULL BEGIN SELECT RAISE(ABORT, 'issuer_revisions is append-only'); END;--> statement-breakpoint
DROP TRIGGER multiplier_updates_no_update;--> statement-breakpoint
CREATE TRIGGER multiplier_updates_no_update BEFORE UPDATE ON multiplier_updates WHEN OLD.row_sha256 IS NOT NULL BEGIN SELECT RAISE(ABORT, 'multiplier_updates is append-only'); END;--> statement-breakpoint
DROP TRIGGER mint_states_no_update;--> statement-breakpoint
CREATE TRIGGER mint_states_no_update BEFORE UPDATE ON mint_states WHEN OLD.row_sha256 IS NOT NULL BEGIN SELECT RAISE(ABORT, 'mint_states is append-only'); END;--> statement-breakpoint
-- Tables rows of which change in place: any change that does not itself set a seal unseals the
-- row, so the writer's transaction seals it again (and a change by hand shows as unsealed).
CREATE TRIGGER instruments_unseal AFTER UPDATE ON instruments WHEN NEW.row_sha256 IS OLD.row_sha256 BEGIN UPDATE instruments SET row_sha256 = NULL WHERE rowid = NEW.rowid; END;--> statement-breakpoint
CREATE TRIGGER dataset_label_unseal AFTER UPDATE ON dataset_label WHEN NEW.row_sha256 IS OLD.row_sha256 BEGIN UPDATE dataset_label SET row_sha256 = NULL WHERE rowid = NEW.rowid; END;
