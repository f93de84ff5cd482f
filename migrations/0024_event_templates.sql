CREATE TABLE `event_templates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`text` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `events` ADD `template_id` integer;--> statement-breakpoint
CREATE TRIGGER event_templates_no_update BEFORE UPDATE ON event_templates BEGIN SELECT RAISE(ABORT, 'event_templates is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER event_templates_no_delete BEFORE DELETE ON event_templates BEGIN SELECT RAISE(ABORT, 'event_templates is append-only'); END;
