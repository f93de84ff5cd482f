-- The read models written once (docs/storage.md#the-portfolio-holds-the-positions): a wallet's
-- positions and income per mint are held by its stored portfolio, rendered at booking from the
-- engine's positions and the journal, and no longer stored apart.
DROP TABLE "income_totals" CASCADE;--> statement-breakpoint
DROP TABLE "positions" CASCADE;