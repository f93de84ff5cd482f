CREATE TABLE `ledger_state` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
