CREATE TABLE "unbooked_revisions" (
	"event_id" text COLLATE "C" NOT NULL,
	"payload_sha256" text COLLATE "C" NOT NULL,
	"noted_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "unbooked_revisions_event_id_payload_sha256_pk" PRIMARY KEY("event_id","payload_sha256")
);
--> statement-breakpoint
CREATE INDEX "unbooked_revisions_noted" ON "unbooked_revisions" USING btree ("noted_at");