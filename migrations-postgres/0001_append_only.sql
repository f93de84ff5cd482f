-- The ledger's append-only rules, as the SQLite migrations state them (0001, 0008, 0010): evidence
-- and the journal are never deleted; a row may be sealed once, in the transaction that wrote it,
-- and a sealed row refuses every UPDATE; balance changes refuse every UPDATE. Rows that change in
-- place (instruments, the dataset label) are unsealed by any change that does not itself set a
-- seal, so the writer's transaction seals them again and a change by hand shows as unsealed.
CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'raise_exception';
END
$$;
--> statement-breakpoint
CREATE FUNCTION ledger_unseal_changed_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.row_sha256 IS NOT DISTINCT FROM OLD.row_sha256 THEN
    NEW.row_sha256 := NULL;
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal FOR EACH ROW WHEN (OLD.row_sha256 IS NOT NULL) EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER issuer_revisions_no_update BEFORE UPDATE ON issuer_revisions FOR EACH ROW WHEN (OLD.row_sha256 IS NOT NULL) EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER issuer_revisions_no_delete BEFORE DELETE ON issuer_revisions FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER multiplier_updates_no_update BEFORE UPDATE ON multiplier_updates FOR EACH ROW WHEN (OLD.row_sha256 IS NOT NULL) EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER multiplier_updates_no_delete BEFORE DELETE ON multiplier_updates FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER mint_states_no_update BEFORE UPDATE ON mint_states FOR EACH ROW WHEN (OLD.row_sha256 IS NOT NULL) EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER mint_states_no_delete BEFORE DELETE ON mint_states FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER balance_changes_no_update BEFORE UPDATE ON balance_changes FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER balance_changes_no_delete BEFORE DELETE ON balance_changes FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER instruments_unseal BEFORE UPDATE ON instruments FOR EACH ROW EXECUTE FUNCTION ledger_unseal_changed_row();
--> statement-breakpoint
CREATE TRIGGER dataset_label_unseal BEFORE UPDATE ON dataset_label FOR EACH ROW EXECUTE FUNCTION ledger_unseal_changed_row();
