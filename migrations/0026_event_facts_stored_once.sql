ALTER TABLE `action_events` ADD `type` text;--> statement-breakpoint
ALTER TABLE `action_events` ADD `treatment` text;--> statement-breakpoint
ALTER TABLE `action_events` ADD `state` text;--> statement-breakpoint
ALTER TABLE `action_events` ADD `first_observed_active_at` text;--> statement-breakpoint
-- Each event's type, treatment, state and first sight of the activation, from an action that
-- shows it (every action showing an event has them alike: they are its record's).
UPDATE `action_events` SET
  `type` = (SELECT a.`type` FROM `actions` a WHERE a.`event_id` = `action_events`.`id` LIMIT 1),
  `treatment` = (SELECT a.`treatment` FROM `actions` a WHERE a.`event_id` = `action_events`.`id` LIMIT 1),
  `state` = (SELECT a.`state` FROM `actions` a WHERE a.`event_id` = `action_events`.`id` LIMIT 1),
  `first_observed_active_at` = (SELECT a.`first_observed_active_at` FROM `actions` a WHERE a.`event_id` = `action_events`.`id` LIMIT 1);--> statement-breakpoint
ALTER TABLE `actions` DROP COLUMN `mint`;--> statement-breakpoint
ALTER TABLE `actions` DROP COLUMN `type`;--> statement-breakpoint
ALTER TABLE `actions` DROP COLUMN `treatment`;--> statement-breakpoint
ALTER TABLE `actions` DROP COLUMN `state`;--> statement-breakpoint
ALTER TABLE `actions` DROP COLUMN `first_observed_active_at`;--> statement-breakpoint
ALTER TABLE `actions` DROP COLUMN `updated_at`;