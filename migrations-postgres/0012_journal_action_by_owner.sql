DROP INDEX "journal_action";--> statement-breakpoint
CREATE INDEX "journal_action" ON "journal" USING btree ((substr("owner", 1, 4) || "action_id"));