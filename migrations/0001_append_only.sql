-- Evidence and journal tables are append-only: the ledger never rewrites what it recorded.
CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal BEGIN SELECT RAISE(ABORT, 'journal is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal BEGIN SELECT RAISE(ABORT, 'journal is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER issuer_revisions_no_update BEFORE UPDATE ON issuer_revisions BEGIN SELECT RAISE(ABORT, 'issuer_revisions is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER issuer_revisions_no_delete BEFORE DELETE ON issuer_revisions BEGIN SELECT RAISE(ABORT, 'issuer_revisions is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER multiplier_updates_no_update BEFORE UPDATE ON multiplier_updates BEGIN SELECT RAISE(ABORT, 'multiplier_updates is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER multiplier_updates_no_delete BEFORE DELETE ON multiplier_updates BEGIN SELECT RAISE(ABORT, 'multiplier_updates is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER balance_changes_no_update BEFORE UPDATE ON balance_changes BEGIN SELECT RAISE(ABORT, 'balance_changes is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER balance_changes_no_delete BEFORE DELETE ON balance_changes BEGIN SELECT RAISE(ABORT, 'balance_changes is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER mint_states_no_update BEFORE UPDATE ON mint_states BEGIN SELECT RAISE(ABORT, 'mint_states is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER mint_states_no_delete BEFORE DELETE ON mint_states BEGIN SELECT RAISE(ABORT, 'mint_states is append-only'); END;
