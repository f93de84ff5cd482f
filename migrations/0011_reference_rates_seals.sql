ALTER TABLE `reference_rates` ADD `row_sha256` text;--> statement-breakpoint
CREATE INDEX `reference_rates_unsealed` ON `reference_rates` (`currency`,`date`) WHERE row_sha256 IS NULL;