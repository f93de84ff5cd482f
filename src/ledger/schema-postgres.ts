// The ledger's tables on PostgreSQL: the same tables, columns, keys and indexes as schema.ts
// (SQLite), column for column; test/ledger/schemas.test.ts proves the two describe the same
// ledger. The dialects differ only where they must:
// - text is collated "C" (bytewise, as SQLite compares), so every ORDER BY, range and index
//   orders text the same in both engines whatever the database's own locale: the engine reads
//   its input in the same order and derives the same actions and hashes;
// - integers are bigint (SQLite's are 64-bit); the three flags are integers holding 0 or 1 as in
//   SQLite, so a flag reads and compares the same in both;
// - exact values (amounts, multipliers, USD) are text decimals and JSON is text, as in SQLite:
//   never numeric, float or jsonb, which would rewrite what was stored and so its hash.
// What each table and column holds is said once, in schema.ts. drizzle-kit generates
// migrations-postgres/ from this file (drizzle.postgres.config.ts).
import { sql } from "drizzle-orm";
import { bigint, customType, index, integer, pgTable, primaryKey, uniqueIndex } from "drizzle-orm/pg-core";

/** Text compared byte by byte, as SQLite compares it. */
const text = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });

/** A flag stored as 0 or 1 (SQLite's booleans), so both engines read and compare it the same. */
const flag = (name: string) => integer(name);

// ---- tenants, keys, wallets --------------------------------------------------------------

export const tenants = pgTable("tenants", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
  slug: text("slug").notNull().unique(),
  maxWallets: bigint("max_wallets", { mode: "number" }).notNull().default(100),
  createdAt: text("created_at").notNull(),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    tenantId: bigint("tenant_id", { mode: "number" }).notNull().references(() => tenants.id),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    keySha256: text("key_sha256").notNull().unique(),
    scopes: text("scopes").notNull(),
    createdAt: text("created_at").notNull(),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
  },
  (t) => [index("api_keys_tenant").on(t.tenantId)],
);

export const dashboardSessions = pgTable(
  "dashboard_sessions",
  {
    idSha256: text("id_sha256").primaryKey(),
    keyId: text("key_id").notNull().references(() => apiKeys.id),
    csrfToken: text("csrf_token").notNull(),
    createdAt: text("created_at").notNull(),
    lastSeenAt: text("last_seen_at").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("dashboard_sessions_key").on(t.keyId)],
);

export const tenantWallets = pgTable(
  "tenant_wallets",
  {
    tenantId: bigint("tenant_id", { mode: "number" }).notNull().references(() => tenants.id),
    owner: text("owner").notNull(),
    registeredAt: text("registered_at").notNull(),
    firstSyncedAt: text("first_synced_at"),
    syncedJournalId: bigint("synced_journal_id", { mode: "number" }),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.owner] }), index("tenant_wallets_owner").on(t.owner)],
);

export const syncJobs = pgTable(
  "sync_jobs",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    tenantId: bigint("tenant_id", { mode: "number" }).notNull().references(() => tenants.id),
    owner: text("owner").notNull(),
    status: text("status").notNull(),
    requestedAt: text("requested_at").notNull(),
    startedAt: text("started_at"),
    finishedAt: text("finished_at"),
    leaseUntil: text("lease_until"),
    attempts: bigint("attempts", { mode: "number" }).notNull().default(0),
    nextRetryAt: text("next_retry_at"),
    phase: text("phase"),
    progressDone: bigint("progress_done", { mode: "number" }).notNull().default(0),
    progressTotal: bigint("progress_total", { mode: "number" }).notNull().default(0),
    transactionsFetched: bigint("transactions_fetched", { mode: "number" }).notNull().default(0),
    gaps: text("gaps").notNull().default("[]"),
    error: text("error"),
    nextSyncAt: text("next_sync_at"),
    deadlinePassedAt: text("deadline_passed_at"),
  },
  (t) => [uniqueIndex("sync_jobs_tenant_owner").on(t.tenantId, t.owner), index("sync_jobs_status").on(t.status), index("sync_jobs_next_sync").on(t.nextSyncAt)],
);

// ---- observations (append-only) --------------------------------------------------------

export const instruments = pgTable(
  "instruments",
  {
    mint: text("mint").primaryKey(),
    symbol: text("symbol").notNull(),
    name: text("name"),
    underlying: text("underlying"),
    isin: text("isin"),
    decimals: bigint("decimals", { mode: "number" }),
    updatedAt: text("updated_at").notNull(),
    rowSha256: text("row_sha256"),
    source: text("source").notNull().default("xstocks"),
    uri: text("uri"),
  },
  (t) => [index("instruments_unsealed").on(t.mint).where(sql`row_sha256 IS NULL`)],
);

export const issuerRevisions = pgTable(
  "issuer_revisions",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    eventId: text("event_id").notNull(),
    version: bigint("version", { mode: "number" }).notNull(),
    symbol: text("symbol").notNull(),
    payload: text("payload").notNull(),
    payloadSha256: text("payload_sha256").notNull(),
    edited: flag("edited").notNull().default(0),
    ingestedAt: text("ingested_at").notNull(),
    rowSha256: text("row_sha256"),
    source: text("source").notNull().default("xstocks"),
    mint: text("mint"),
  },
  (t) => [
    uniqueIndex("issuer_revisions_hash").on(t.eventId, t.version, t.payloadSha256),
    index("issuer_revisions_symbol").on(t.symbol),
    index("issuer_revisions_mint").on(t.mint),
    index("issuer_revisions_unsealed").on(t.id).where(sql`row_sha256 IS NULL`),
  ],
);

export const issuerRejections = pgTable("issuer_rejections", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
  source: text("source").notNull(),
  payload: text("payload").notNull(),
  reason: text("reason").notNull(),
  receivedAt: text("received_at").notNull(),
});

export const mintStates = pgTable(
  "mint_states",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    mint: text("mint").notNull(),
    slot: bigint("slot", { mode: "number" }).notNull(),
    decimals: bigint("decimals", { mode: "number" }).notNull(),
    authority: text("authority"),
    multiplier: text("multiplier").notNull(),
    newMultiplier: text("new_multiplier").notNull(),
    newMultiplierEffectiveTs: bigint("new_multiplier_effective_ts", { mode: "number" }).notNull(),
    observedAt: bigint("observed_at", { mode: "number" }).notNull(),
    rowSha256: text("row_sha256"),
  },
  (t) => [uniqueIndex("mint_states_mint_slot").on(t.mint, t.slot), index("mint_states_unsealed").on(t.id).where(sql`row_sha256 IS NULL`)],
);

export const multiplierUpdates = pgTable(
  "multiplier_updates",
  {
    signature: text("signature").notNull(),
    ixIndex: bigint("ix_index", { mode: "number" }).notNull(),
    mint: text("mint").notNull(),
    slot: bigint("slot", { mode: "number" }).notNull(),
    blockTime: bigint("block_time", { mode: "number" }).notNull(),
    multiplier: text("multiplier").notNull(),
    effectiveTs: bigint("effective_ts", { mode: "number" }).notNull(),
    authority: text("authority").notNull(),
    rowSha256: text("row_sha256"),
  },
  (t) => [
    primaryKey({ columns: [t.signature, t.ixIndex] }),
    index("multiplier_updates_mint").on(t.mint),
    index("multiplier_updates_unsealed").on(t.signature).where(sql`row_sha256 IS NULL`),
  ],
);

export const tokenAccounts = pgTable(
  "token_accounts",
  {
    address: text("address").primaryKey(),
    owner: text("owner").notNull(),
    mint: text("mint").notNull(),
    rawBalance: text("raw_balance").notNull(),
    slot: bigint("slot", { mode: "number" }).notNull(),
  },
  (t) => [index("token_accounts_owner").on(t.owner), index("token_accounts_mint").on(t.mint, t.owner)],
);

export const balanceChanges = pgTable(
  "balance_changes",
  {
    signature: text("signature").notNull(),
    tokenAccount: text("token_account").notNull(),
    owner: text("owner").notNull(),
    mint: text("mint").notNull(),
    slot: bigint("slot", { mode: "number" }).notNull(),
    blockTime: bigint("block_time", { mode: "number" }).notNull(),
    preRaw: text("pre_raw").notNull(),
    postRaw: text("post_raw").notNull(),
    ownerSigned: flag("owner_signed"),
    byPermanentDelegate: flag("by_permanent_delegate"),
  },
  (t) => [primaryKey({ columns: [t.signature, t.tokenAccount] }), index("balance_changes_owner").on(t.owner), index("balance_changes_mint").on(t.mint, t.owner)],
);

export const walkCursors = pgTable(
  "walk_cursors",
  {
    scope: text("scope").notNull(),
    address: text("address").notNull(),
    newestSignature: text("newest_signature"),
    newestSlot: bigint("newest_slot", { mode: "number" }),
    resumeBefore: text("resume_before"),
    resumeUntil: text("resume_until"),
    resumeNewest: text("resume_newest"),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.address] })],
);

export const ownerScans = pgTable(
  "owner_scans",
  {
    owner: text("owner").notNull(),
    signature: text("signature").notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.signature] })],
);

export const walletGaps = pgTable(
  "wallet_gaps",
  {
    owner: text("owner").notNull(),
    address: text("address").notNull(),
    reason: text("reason").notNull(),
    recordedAt: text("recorded_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.address] })],
);

export const transitionsSeen = pgTable("transitions_seen", {
  key: text("key").primaryKey(),
  firstObservedActiveAt: text("first_observed_active_at").notNull(),
});

// ---- what waits to be booked -----------------------------------------------------------

export const dirtyWallets = pgTable("dirty_wallets", {
  owner: text("owner").primaryKey(),
  seq: bigint("seq", { mode: "number" }).notNull(),
  markedAt: text("marked_at").notNull(),
  notBefore: text("not_before"),
});

export const dirtyMints = pgTable("dirty_mints", {
  mint: text("mint").primaryKey(),
  seq: bigint("seq", { mode: "number" }).notNull(),
  markedAt: text("marked_at").notNull(),
  notBefore: text("not_before"),
});

// ---- the engine's output ----------------------------------------------------------------

export const actionEvents = pgTable("action_events", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
  sha256: text("sha256").notNull().unique(),
  mint: text("mint").notNull(),
  transitionKey: text("transition_key"),
  record: text("record").notNull(),
  summary: text("summary").notNull(),
  detail: text("detail").notNull(),
  v1Entry: text("v1_entry"),
});

export const actions = pgTable(
  "actions",
  {
    id: text("id").primaryKey(),
    owner: text("owner").notNull(),
    mint: text("mint").notNull(),
    type: text("type").notNull(),
    treatment: text("treatment").notNull(),
    state: text("state").notNull(),
    effectiveAt: text("effective_at").notNull(),
    usd: text("usd"),
    v1Kind: text("v1_kind"),
    payloadSha256: text("payload_sha256").notNull(),
    evidenceSha256: text("evidence_sha256").notNull(),
    firstObservedActiveAt: text("first_observed_active_at"),
    walletValues: text("wallet_values").notNull(),
    eventId: bigint("event_id", { mode: "number" }).notNull().references(() => actionEvents.id),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("actions_owner_effective").on(t.owner, t.effectiveAt, t.id),
    index("actions_owner_v1").on(t.owner, t.effectiveAt, t.id, t.v1Kind).where(sql`v1_kind IS NOT NULL`),
    index("actions_owner_v1_kind").on(t.owner, t.v1Kind),
    index("actions_event").on(t.eventId),
  ],
);

export const journal = pgTable(
  "journal",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    owner: text("owner").notNull(),
    actionId: text("action_id").notNull(),
    entryType: text("entry_type").notNull(),
    reversesId: bigint("reverses_id", { mode: "number" }),
    mint: text("mint").notNull(),
    symbol: text("symbol"),
    type: text("type").notNull(),
    treatment: text("treatment").notNull(),
    kind: text("kind").notNull(),
    unitsDelta: text("units_delta").notNull(),
    principalUnitsDelta: text("principal_units_delta").notNull(),
    incomeUnits: text("income_units").notNull(),
    usd: text("usd"),
    factor: text("factor"),
    effectiveAt: text("effective_at").notNull(),
    changeReason: text("change_reason"),
    evidenceSha256: text("evidence_sha256").notNull(),
    payload: text("payload").notNull(),
    createdAt: text("created_at").notNull(),
    rowSha256: text("row_sha256"),
  },
  (t) => [
    index("journal_owner").on(t.owner, t.id),
    index("journal_owner_effective").on(t.owner, t.effectiveAt, t.id),
    index("journal_action").on(t.actionId),
    index("journal_reverses").on(t.reversesId),
    index("journal_unsealed").on(t.id).where(sql`row_sha256 IS NULL`),
  ],
);

export const referenceRates = pgTable(
  "reference_rates",
  {
    currency: text("currency").notNull(),
    date: text("date").notNull(),
    perEur: text("per_eur").notNull(),
    importedAt: text("imported_at").notNull(),
    rowSha256: text("row_sha256"),
  },
  (t) => [primaryKey({ columns: [t.currency, t.date] }), index("reference_rates_unsealed").on(t.currency, t.date).where(sql`row_sha256 IS NULL`)],
);

export const incomeTotals = pgTable(
  "income_totals",
  {
    owner: text("owner").notNull(),
    mint: text("mint").notNull(),
    usd: text("usd").notNull(),
    unvaluedEvents: bigint("unvalued_events", { mode: "number" }).notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.mint] })],
);

export const positions = pgTable(
  "positions",
  {
    owner: text("owner").notNull(),
    mint: text("mint").notNull(),
    payload: text("payload").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.mint] })],
);

export const yields = pgTable(
  "yields",
  {
    owner: text("owner").notNull(),
    payload: text("payload").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner] })],
);

export const portfolios = pgTable("portfolios", {
  owner: text("owner").primaryKey(),
  body: text("body").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const lineage = pgTable("lineage", {
  mint: text("mint").primaryKey(),
  payload: text("payload").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const censusInstances = pgTable(
  "census_instances",
  {
    transitionKey: text("transition_key").primaryKey(),
    mint: text("mint").notNull(),
    type: text("type").notNull(),
    eventId: text("event_id").notNull(),
    version: bigint("version", { mode: "number" }).notNull(),
    reconciled: flag("reconciled").notNull(),
  },
  (t) => [index("census_instances_mint").on(t.mint), index("census_instances_type").on(t.type)],
);

export const mintSchedule = pgTable("mint_schedule", {
  mint: text("mint").primaryKey(),
  nextActivationTs: bigint("next_activation_ts", { mode: "number" }),
  updatedAt: text("updated_at").notNull(),
});

export const taxonomyCensus = pgTable("taxonomy_census", {
  type: text("type").primaryKey(),
  payload: text("payload").notNull(),
  updatedAt: text("updated_at").notNull(),
});

// ---- settings ----------------------------------------------------------------------------

export const datasetLabel = pgTable(
  "dataset_label",
  {
    id: bigint("id", { mode: "number" }).primaryKey(),
    kind: text("kind").notNull(),
    description: text("description"),
    createdAt: text("created_at").notNull(),
    rowSha256: text("row_sha256"),
  },
  (t) => [index("dataset_label_unsealed").on(t.id).where(sql`row_sha256 IS NULL`)],
);

export const ledgerState = pgTable("ledger_state", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

// Issuer revisions that changed no booking (schema.ts says why).
export const unbookedRevisions = pgTable(
  "unbooked_revisions",
  {
    eventId: text("event_id").notNull(),
    payloadSha256: text("payload_sha256").notNull(),
    notedAt: text("noted_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.payloadSha256] }), index("unbooked_revisions_noted").on(t.notedAt)],
);

export const feedStatus = pgTable("feed_status", {
  name: text("name").primaryKey(),
  lastSuccessAt: text("last_success_at"),
  lastErrorAt: text("last_error_at"),
  lastError: text("last_error"),
  degraded: text("degraded"),
  updatedAt: text("updated_at").notNull(),
});

// ---- events and webhooks (schema.ts says what each holds) -------------------------------------

export const events = pgTable(
  "events",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    tenantId: bigint("tenant_id", { mode: "number" }).notNull().references(() => tenants.id),
    type: text("type").notNull(),
    owner: text("owner"),
    body: text("body").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("events_tenant_seq").on(t.tenantId, t.seq)],
);

export const webhookSubscriptions = pgTable(
  "webhook_subscriptions",
  {
    id: text("id").primaryKey(),
    tenantId: bigint("tenant_id", { mode: "number" }).notNull().references(() => tenants.id),
    url: text("url").notNull(),
    events: text("events"),
    sealedSecrets: text("sealed_secrets").notNull(),
    createdAt: text("created_at").notNull(),
    removedAt: text("removed_at"),
  },
  (t) => [index("webhook_subscriptions_tenant").on(t.tenantId)],
);

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    subscriptionId: text("subscription_id").notNull().references(() => webhookSubscriptions.id),
    eventSeq: bigint("event_seq", { mode: "number" }).notNull().references(() => events.seq),
    status: text("status").notNull(),
    attempts: bigint("attempts", { mode: "number" }).notNull(),
    dueSince: text("due_since").notNull(),
    nextAttemptAt: text("next_attempt_at"),
    leaseUntil: text("lease_until"),
    lastAttemptAt: text("last_attempt_at"),
    lastStatus: bigint("last_status", { mode: "number" }),
    lastAnswer: text("last_answer"),
  },
  (t) => [
    index("webhook_deliveries_subscription").on(t.subscriptionId, t.id),
    index("webhook_deliveries_pending").on(t.subscriptionId, t.id).where(sql`status = 'pending'`),
    index("webhook_deliveries_due").on(t.nextAttemptAt).where(sql`status = 'pending'`),
  ],
);

// Read-only iCalendar URLs (`ca-ledger calendar-url`; docs/events.md#the-calendar): the token is
// the URL's only credential; only its SHA-256 is kept, as for API keys. Revoked, never deleted.
export const calendarTokens = pgTable(
  "calendar_tokens",
  {
    tokenSha256: text("token_sha256").primaryKey(),
    tenantId: bigint("tenant_id", { mode: "number" }).notNull().references(() => tenants.id),
    createdAt: text("created_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (t) => [index("calendar_tokens_tenant").on(t.tenantId)],
);
