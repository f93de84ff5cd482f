CREATE TABLE "portfolios" (
	"owner" text COLLATE "C" PRIMARY KEY NOT NULL,
	"body" text COLLATE "C" NOT NULL,
	"updated_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
-- Every booked wallet is booked once again after the upgrade, which stores its portfolio; until
-- then the route renders it per request, as before.
INSERT INTO "dirty_wallets" ("owner", "seq", "marked_at") SELECT "owner", 1, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') FROM "yields" ON CONFLICT DO NOTHING;
