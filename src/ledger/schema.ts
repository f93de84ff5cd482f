// The ledger's tables. Times are ISO-8601 UTC text; exact numbers (raw amounts, multipliers,
// USD) are TEXT decimals so no float ever touches them. Tables that hold evidence or the
// journal are append-only: migrations add triggers that refuse UPDATE and DELETE on them.
//
// `row_sha256` is a row's seal (src/ledger/seals.ts): the SHA-256 of its content, set in the
// transaction that wrote the row, so `ca-ledger verify` catches a changed byte in rows nothing
// else derives. The partial `*_unsealed` indexes let each write find its unsealed rows at once.
import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, primaryKey, index, uniqueIndex } from "drizzle-orm/sqlite-core";

// ---- tenants, keys, wallets --------------------------------------------------------------

export const tenants = sqliteTable("tenants", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  slug: text("slug").notNull().unique(),
  maxWallets: integer("max_wallets").notNull().default(100),
  createdAt: text("created_at").notNull(),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(), // key_ + 12 base32
    tenantId: integer("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(), // first 12 characters of the key, for recognition only
    keySha256: text("key_sha256").notNull().unique(),
    scopes: text("scopes").notNull(), // comma-separated
    createdAt: text("created_at").notNull(),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
  },
  (t) => [index("api_keys_tenant").on(t.tenantId)],
);

// A browser signed in to the dashboard. The cookie holds a random session id; only its SHA-256
// is stored, with the key the session acts for (its row is read on every request, so revoking the
// key ends the session), the session's CSRF token and its clock. Rows are deleted on sign-out,
// on expiry and when the key is found revoked.
export const dashboardSessions = sqliteTable(
  "dashboard_sessions",
  {
    idSha256: text("id_sha256").primaryKey(),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id),
    csrfToken: text("csrf_token").notNull(),
    createdAt: text("created_at").notNull(),
    lastSeenAt: text("last_seen_at").notNull(),
    expiresAt: text("expires_at").notNull(), // the absolute limit; the idle limit counts from last_seen_at
  },
  (t) => [index("dashboard_sessions_key").on(t.keyId)],
);

export const tenantWallets = sqliteTable(
  "tenant_wallets",
  {
    tenantId: integer("tenant_id")
      .notNull()
      .references(() => tenants.id),
    owner: text("owner").notNull(),
    registeredAt: text("registered_at").notNull(),
    // When this tenant's own sync of the wallet first finished: the tenant sees the wallet's
    // books only from then on, whatever other tenants that follow the same wallet did before.
    firstSyncedAt: text("first_synced_at"),
    // The wallet's newest journal entry when this tenant was last sent `wallet.synced`: a sync
    // that ends with newer entries sends it again (docs/events.md#event-types).
    syncedJournalId: integer("synced_journal_id"),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.owner] }), index("tenant_wallets_owner").on(t.owner)],
);

// One job row per tenant × wallet: a tenant's sync status never reveals another tenant's
// requests. The chain data the jobs fetch is shared (it is public), the jobs are not.
export const syncJobs = sqliteTable(
  "sync_jobs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tenantId: integer("tenant_id")
      .notNull()
      .references(() => tenants.id),
    owner: text("owner").notNull(),
    status: text("status").notNull(), // queued | running | complete | partial | failed
    requestedAt: text("requested_at").notNull(),
    startedAt: text("started_at"),
    finishedAt: text("finished_at"),
    leaseUntil: text("lease_until"),
    attempts: integer("attempts").notNull().default(0),
    nextRetryAt: text("next_retry_at"),
    phase: text("phase"),
    progressDone: integer("progress_done").notNull().default(0),
    progressTotal: integer("progress_total").notNull().default(0),
    transactionsFetched: integer("transactions_fetched").notNull().default(0),
    gaps: text("gaps").notNull().default("[]"), // JSON array of {address, reason}
    error: text("error"),
    // A finished job runs again from here on (following: every RESYNC_SECONDS, jittered).
    nextSyncAt: text("next_sync_at"),
    // Set when the job's last run hit its deadline (what it read is kept; the rest is a gap).
    deadlinePassedAt: text("deadline_passed_at"),
  },
  (t) => [uniqueIndex("sync_jobs_tenant_owner").on(t.tenantId, t.owner), index("sync_jobs_status").on(t.status), index("sync_jobs_next_sync").on(t.nextSyncAt)],
);

// ---- observations (append-only) --------------------------------------------------------

// An instrument comes from the issuer feed (`xstocks`), or, for a Scaled UI Amount mint the feed
// does not list, from the mint's own Token-2022 metadata extension (`token-metadata`, with its
// `uri`). A feed row always replaces a metadata row; a metadata row never replaces a feed row.
export const instruments = sqliteTable(
  "instruments",
  {
    mint: text("mint").primaryKey(),
    symbol: text("symbol").notNull(),
    name: text("name"),
    underlying: text("underlying"),
    isin: text("isin"),
    decimals: integer("decimals"),
    updatedAt: text("updated_at").notNull(),
    rowSha256: text("row_sha256"),
    source: text("source").notNull().default("xstocks"), // xstocks | token-metadata
    uri: text("uri"),
  },
  (t) => [index("instruments_unsealed").on(t.mint).where(sql`row_sha256 IS NULL`)],
);

export const issuerRevisions = sqliteTable(
  "issuer_revisions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: text("event_id").notNull(),
    version: integer("version").notNull(),
    symbol: text("symbol").notNull(),
    payload: text("payload").notNull(), // canonical JSON (RFC 8785) of the record as received
    payloadSha256: text("payload_sha256").notNull(),
    edited: integer("edited", { mode: "boolean" }).notNull().default(false),
    ingestedAt: text("ingested_at").notNull(),
    rowSha256: text("row_sha256"),
    // Who stated it: the issuer's feed (`xstocks`) or an operator's import (`operator`). An
    // operator record names its mint (the payload carries it too); the issuer's reach a mint
    // through the feed's symbol.
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

export const issuerRejections = sqliteTable("issuer_rejections", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  source: text("source").notNull(),
  payload: text("payload").notNull(),
  reason: text("reason").notNull(),
  receivedAt: text("received_at").notNull(),
});

export const mintStates = sqliteTable(
  "mint_states",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    mint: text("mint").notNull(),
    slot: integer("slot").notNull(),
    decimals: integer("decimals").notNull(),
    authority: text("authority"),
    multiplier: text("multiplier").notNull(), // f64 as its shortest round-trip string
    newMultiplier: text("new_multiplier").notNull(),
    newMultiplierEffectiveTs: integer("new_multiplier_effective_ts").notNull(),
    observedAt: integer("observed_at").notNull(),
    rowSha256: text("row_sha256"),
  },
  (t) => [uniqueIndex("mint_states_mint_slot").on(t.mint, t.slot), index("mint_states_unsealed").on(t.id).where(sql`row_sha256 IS NULL`)],
);

export const multiplierUpdates = sqliteTable(
  "multiplier_updates",
  {
    signature: text("signature").notNull(),
    ixIndex: integer("ix_index").notNull(),
    mint: text("mint").notNull(),
    slot: integer("slot").notNull(),
    blockTime: integer("block_time").notNull(),
    multiplier: text("multiplier").notNull(),
    effectiveTs: integer("effective_ts").notNull(),
    authority: text("authority").notNull(),
    rowSha256: text("row_sha256"),
  },
  (t) => [primaryKey({ columns: [t.signature, t.ixIndex] }), index("multiplier_updates_mint").on(t.mint), index("multiplier_updates_unsealed").on(t.signature).where(sql`row_sha256 IS NULL`)],
);

export const tokenAccounts = sqliteTable(
  "token_accounts",
  {
    address: text("address").primaryKey(),
    owner: text("owner").notNull(),
    mint: text("mint").notNull(),
    rawBalance: text("raw_balance").notNull(),
    slot: integer("slot").notNull(),
  },
  (t) => [index("token_accounts_owner").on(t.owner), index("token_accounts_mint").on(t.mint, t.owner)],
);

export const balanceChanges = sqliteTable(
  "balance_changes",
  {
    signature: text("signature").notNull(),
    tokenAccount: text("token_account").notNull(),
    owner: text("owner").notNull(),
    mint: text("mint").notNull(),
    slot: integer("slot").notNull(),
    blockTime: integer("block_time").notNull(),
    preRaw: text("pre_raw").notNull(),
    postRaw: text("post_raw").notNull(),
    // Who signed: a transfer out that the mint's permanent delegate signed and the owner did not
    // is a custody seizure. Null where the source could not tell.
    ownerSigned: integer("owner_signed", { mode: "boolean" }),
    byPermanentDelegate: integer("by_permanent_delegate", { mode: "boolean" }),
  },
  (t) => [primaryKey({ columns: [t.signature, t.tokenAccount] }), index("balance_changes_owner").on(t.owner), index("balance_changes_mint").on(t.mint, t.owner)],
);

// One owner's part of a transaction in which its balance of a followed Scaled UI mint changed
// (docs/lots.md#what-the-sync-stores): its token accounts of both token programs, its SOL and the
// signers, as the sync read them the first time it fetched the transaction (no extra call), so a
// later sync that reuses the stored balance changes, or another tenant's, still has them. The
// lots derive a movement's price from them: the stablecoins that left or arrived with the units.
export const transactionChanges = sqliteTable(
  "transaction_changes",
  {
    signature: text("signature").notNull(),
    owner: text("owner").notNull(),
    slot: integer("slot").notNull(),
    blockTime: integer("block_time").notNull(),
    signers: text("signers").notNull(), // JSON array of addresses
    lamports: text("lamports"), // the owner's SOL change, fee added back when it paid it; null: unknown
    tokens: text("tokens").notNull(), // canonical JSON array of {mint, decimals, preRaw, postRaw}, in account order
    rowSha256: text("row_sha256"),
  },
  (t) => [primaryKey({ columns: [t.signature, t.owner] }), index("transaction_changes_owner").on(t.owner), index("transaction_changes_unsealed").on(t.signature).where(sql`row_sha256 IS NULL`)],
);

// What an operator declared with `ca-ledger import cost-basis` (docs/lots.md#declared-cost-basis):
// a cost the chain cannot show, about one wallet, as its canonical JSON (source `operator`),
// hashed; the same declaration imported twice is one row. Never edited: a later declaration for
// the same acquisition replaces an earlier one in the derivation, in id order.
export const costBasisDeclarations = sqliteTable(
  "cost_basis_declarations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    owner: text("owner").notNull(),
    payload: text("payload").notNull(),
    payloadSha256: text("payload_sha256").notNull(),
    source: text("source").notNull().default("operator"),
    importedAt: text("imported_at").notNull(),
    rowSha256: text("row_sha256"),
  },
  (t) => [
    uniqueIndex("cost_basis_declarations_hash").on(t.payloadSha256),
    index("cost_basis_declarations_owner").on(t.owner, t.id),
    index("cost_basis_declarations_unsealed").on(t.id).where(sql`row_sha256 IS NULL`),
  ],
);

// Where each signature walk stands. `scope` is the tenant id for a wallet's token accounts (each
// tenant follows a wallet from its own cursors, so what it is told never depends on another
// tenant's syncs) and "*" for a multiplier authority (walked once for every mint it controls).
// A walk cut short by its page budget keeps where to resume: it walks on from `resume_before`
// down to `resume_until`, and only then moves the cursor up to `resume_newest`.
// WITHOUT ROWID on SQLite (migration 0025, by hand: drizzle-kit does not model it), as owner_scans:
// read by its key alone, each row is stored once, as its key's index (docs/storage.md#the-syncs-keys-stored-once).
export const walkCursors = sqliteTable(
  "walk_cursors",
  {
    scope: text("scope").notNull(),
    address: text("address").notNull(),
    newestSignature: text("newest_signature"),
    // The slot of newest_signature, where known: a provider's getTransactionsForAddress walk
    // resumes from a slot, not a signature.
    newestSlot: integer("newest_slot"),
    resumeBefore: text("resume_before"),
    resumeUntil: text("resume_until"),
    resumeNewest: text("resume_newest"),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.address] })],
);

// The wallet transactions whose token accounts a sync has already looked for (the owner's own
// history, where closed accounts are found): what they named is in token_accounts, so another
// tenant's walk of the same history need not fetch them again. Written with what they named.
// WITHOUT ROWID on SQLite (migration 0025): nothing but its key, stored once.
export const ownerScans = sqliteTable(
  "owner_scans",
  {
    owner: text("owner").notNull(),
    signature: text("signature").notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.signature] })],
);

export const walletGaps = sqliteTable(
  "wallet_gaps",
  {
    owner: text("owner").notNull(),
    address: text("address").notNull(),
    reason: text("reason").notNull(),
    recordedAt: text("recorded_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.address] })],
);

// When a sync first saw each chain transition in force (one of the six action timestamps).
export const transitionsSeen = sqliteTable("transitions_seen", {
  key: text("key").primaryKey(),
  firstObservedActiveAt: text("first_observed_active_at").notNull(),
});

// ---- what waits to be booked -----------------------------------------------------------

// Dirty sets: the store marks the wallets and mints that new observations touch, in the same
// transaction as the observations. Booking clears a mark in the transaction that books it, and
// only if `seq` is still the one it read (a mark bumped meanwhile stays for the next round).
// `not_before` holds back a mark whose booking failed (the engine threw on it) until a retry.
export const dirtyWallets = sqliteTable("dirty_wallets", {
  owner: text("owner").primaryKey(),
  seq: integer("seq").notNull(),
  markedAt: text("marked_at").notNull(),
  notBefore: text("not_before"),
});

export const dirtyMints = sqliteTable("dirty_mints", {
  mint: text("mint").primaryKey(),
  seq: integer("seq").notNull(),
  markedAt: text("marked_at").notNull(),
  notBefore: text("not_before"),
});

// ---- the engine's output ----------------------------------------------------------------

// What every wallet holding a corporate action shows alike, stored once (docs/storage.md): the
// action record less the wallet's fields, as canonical JSON, and the documents the API serves of
// it as templates, with a slot for each wallet value (src/ledger/action-rows.ts). Keyed by the
// SHA-256 of that content, so wallets showing the same text share a row and a new issuer record
// writes its event's new row once; a row no action refers to any more is deleted with the last
// action that did.
export const actionEvents = sqliteTable("action_events", {
  id: integer("id").primaryKey({ autoIncrement: true }), // never reused: a deleted event's id names no later one
  sha256: text("sha256").notNull().unique(), // of record, summary, detail and v1_entry
  mint: text("mint").notNull(),
  transitionKey: text("transition_key"), // the chain transition; null for announced events and custody transfers
  record: text("record").notNull(), // canonical JSON of the action record, less the wallet's fields
  summary: text("summary").notNull(), // the v2 list item, a template
  detail: text("detail").notNull(), // the v2 detail less dataset and journal, a template
  v1Entry: text("v1_entry"), // the v1 income entry, a template; null when v1 does not show the action
  // The record's type, treatment, lifecycle state and first sight of the activation, as columns
  // the reads filter and verify compares by (every action showing the event has them alike;
  // docs/storage.md#the-layout). Set by every write and, for rows of before, by migration 0026.
  type: text("type"),
  treatment: text("treatment"),
  state: text("state"),
  firstObservedActiveAt: text("first_observed_active_at"),
});

// The current classification of each wallet × chain transition: the wallet's own values and the
// event it shows. Rebooking replaces the row; the history of what was booked lives in the
// append-only journal below.
export const actions = sqliteTable(
  "actions",
  {
    id: text("id").primaryKey(),
    owner: text("owner").notNull(),
    effectiveAt: text("effective_at").notNull(),
    usd: text("usd"),
    v1Kind: text("v1_kind"), // the v1 kind of the action's v1 entry (set exactly when it has one), for counting without reading JSON
    payloadSha256: text("payload_sha256").notNull(), // of the canonical JSON of the engine's ActionRecord
    evidenceSha256: text("evidence_sha256").notNull(),
    // The wallet's own values (units, amounts, its evidence), JSON texts in the order of
    // action-rows.ts WALLET_VALUES after the row's columns.
    walletValues: text("wallet_values").notNull(),
    eventId: integer("event_id")
      .notNull()
      .references(() => actionEvents.id),
  },
  (t) => [
    // The one index on a wallet's actions (docs/storage.md#indexes): the v2 and v1 lists read
    // their order (newest first, by id on ties) straight off it; with v1_kind among its columns it
    // answers the v1 counts (v1_kind is set exactly when the action has a v1 entry) and the
    // portfolio's count of unclassified adjustments without reading the rows.
    index("actions_owner_effective").on(t.owner, t.effectiveAt, t.id, t.v1Kind),
    // Whether any action still shows an event (before its row is deleted).
    index("actions_event").on(t.eventId),
  ],
);

// Append-only (triggers). Each wallet × action gets a recognition; a change of evidence
// appends a reversal of the standing entry and a new recognition, with a change reason.
export const journal = sqliteTable(
  "journal",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    owner: text("owner").notNull(),
    actionId: text("action_id").notNull(),
    entryType: text("entry_type").notNull(), // recognition | reversal
    reversesId: integer("reverses_id"),
    mint: text("mint").notNull(),
    symbol: text("symbol"),
    type: text("type").notNull(),
    treatment: text("treatment").notNull(),
    kind: text("kind").notNull(), // v1 kind
    unitsDelta: text("units_delta").notNull(),
    principalUnitsDelta: text("principal_units_delta").notNull(),
    incomeUnits: text("income_units").notNull(),
    usd: text("usd"),
    factor: text("factor"),
    effectiveAt: text("effective_at").notNull(),
    changeReason: text("change_reason"),
    evidenceSha256: text("evidence_sha256").notNull(),
    payload: text("payload").notNull(), // canonical JSON of the booking
    createdAt: text("created_at").notNull(),
    rowSha256: text("row_sha256"), // chained: each seal covers the previous entry's seal too
  },
  (t) => [
    // A wallet's entries: date filters and the year report read those of a period off this
    // index, everything else by owner reads it too (docs/storage.md#indexes).
    index("journal_owner_effective").on(t.owner, t.effectiveAt, t.id),
    // An action's entries, by its id led by its wallet's first four characters: booking writes
    // wallets in address order, so one chunk's new entries sit together on the index's pages,
    // not one on every page (docs/storage.md#indexes).
    index("journal_action").on(sql`(substr(${t.owner}, 1, 4) || ${t.actionId})`),
    index("journal_reverses").on(t.reversesId),
    index("journal_unsealed").on(t.id).where(sql`row_sha256 IS NULL`),
  ],
);

// The ECB's euro reference rates, as `ca-ledger rates import` read them from eurofxref-hist.csv:
// units of a currency per euro on a business day, exactly as published (a day the ECB quoted no
// rate for a currency has no row). The year report converts USD through them
// (docs/income-and-tax.md#reference-rates).
export const referenceRates = sqliteTable(
  "reference_rates",
  {
    currency: text("currency").notNull(),
    date: text("date").notNull(), // YYYY-MM-DD
    perEur: text("per_eur").notNull(),
    importedAt: text("imported_at").notNull(),
    rowSha256: text("row_sha256"),
  },
  (t) => [primaryKey({ columns: [t.currency, t.date] }), index("reference_rates_unsealed").on(t.currency, t.date).where(sql`row_sha256 IS NULL`)],
);

// A wallet's positions and its income per mint are not stored apart: the portfolio below holds
// them, rendered at booking from the engine's positions and the journal (migration 0021 dropped
// `positions` and `income_totals`, docs/storage.md#the-portfolio-holds-the-positions).
export const yields = sqliteTable(
  "yields",
  {
    owner: text("owner").notNull(),
    payload: text("payload").notNull(), // JSON array of the engine's yield records for the wallet
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner] })],
);

// The portfolio as GET /v1/portfolio answers it, less owner, dataset and asOf (added per request):
// rendered at booking from the wallet's positions as the engine derives them, its income summed
// from the journal and its unclassified actions, in the same transaction, so the route reads one
// row instead of redoing each position's exact display math per request. A wallet with none (not
// booked yet, or booked before migration 0012) is rendered per request (docs/api.md#portfolio).
export const portfolios = sqliteTable("portfolios", {
  owner: text("owner").primaryKey(),
  body: text("body").notNull(), // JSON text, spliced into the answer as stored
  updatedAt: text("updated_at").notNull(),
});

export const lineage = sqliteTable("lineage", {
  mint: text("mint").primaryKey(),
  payload: text("payload").notNull(),
  updatedAt: text("updated_at").notNull(),
});

// The chain transitions matched to an issuer record, per mint: the census every type's
// validation is counted from. Replaced per mint when the mint is booked; the taxonomy sums it.
export const censusInstances = sqliteTable(
  "census_instances",
  {
    transitionKey: text("transition_key").primaryKey(),
    mint: text("mint").notNull(),
    type: text("type").notNull(),
    eventId: text("event_id").notNull(),
    version: integer("version").notNull(),
    reconciled: integer("reconciled", { mode: "boolean" }).notNull(),
  },
  (t) => [index("census_instances_mint").on(t.mint), index("census_instances_type").on(t.type)],
);

// Per mint, when its next scheduled multiplier takes force (as of its last booking): the mint
// poll marks the mint dirty once that time has passed, so the change is booked without a sync.
export const mintSchedule = sqliteTable("mint_schedule", {
  mint: text("mint").primaryKey(),
  nextActivationTs: integer("next_activation_ts"),
  updatedAt: text("updated_at").notNull(),
});

export const taxonomyCensus = sqliteTable("taxonomy_census", {
  type: text("type").primaryKey(),
  payload: text("payload").notNull(),
  updatedAt: text("updated_at").notNull(),
});

// ---- settings ----------------------------------------------------------------------------

export const datasetLabel = sqliteTable(
  "dataset_label",
  {
    id: integer("id").primaryKey(), // always 1
    kind: text("kind").notNull(), // mainnet | synthetic
    description: text("description"),
    createdAt: text("created_at").notNull(),
    rowSha256: text("row_sha256"),
  },
  (t) => [index("dataset_label_unsealed").on(t.id).where(sql`row_sha256 IS NULL`)],
);

// Small facts about the ledger itself (key → value).
export const ledgerState = sqliteTable("ledger_state", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

// Issuer revisions that changed no booking: a wallet's action came to cite the revision while its
// booked figures stayed as they were, so booking appended nothing (docs/journal.md#revisions-that-change-no-figure).
// Written by booking, read by the ops check `issuer_feed_churn` (a record revised again and again
// for nothing); it names the issuer's event and revision, never a wallet or a tenant.
export const unbookedRevisions = sqliteTable(
  "unbooked_revisions",
  {
    eventId: text("event_id").notNull(),
    payloadSha256: text("payload_sha256").notNull(),
    notedAt: text("noted_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.payloadSha256] }), index("unbooked_revisions_noted").on(t.notedAt)],
);

export const feedStatus = sqliteTable("feed_status", {
  name: text("name").primaryKey(), // issuer | mint_poll
  lastSuccessAt: text("last_success_at"),
  lastErrorAt: text("last_error_at"),
  lastError: text("last_error"),
  // Set when the feed answered but its content is suspect (e.g. most issuer rows rejected).
  degraded: text("degraded"),
  updatedAt: text("updated_at").notNull(),
});

// ---- events and webhooks (docs/events.md) -------------------------------------------------

// The outbox: one row per event per tenant, written in the transaction of the ledger change that
// causes it (a booking, the end of a sync, `webhooks test`). Append-only (triggers): `seq` is the
// event's id (`evt_<seq>`), the `webhook-id` of each delivery and the `id:` of its Server-Sent
// Event, and `body` is the exact text every delivery signs and sends.
// What the events of one booking chunk share (docs/events.md#what-the-outbox-stores): an event's
// text, less its wallet's values, with a slot where each goes, as src/ledger/action-rows.ts
// splices them. The events about one corporate action written in one chunk (one type, one
// timestamp, one action text) are a thousand wallets' rows and one of these. Append-only, as the
// events that name them.
export const eventTemplates = sqliteTable("event_templates", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  text: text("text").notNull(),
});

export const events = sqliteTable(
  "events",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    tenantId: integer("tenant_id")
      .notNull()
      .references(() => tenants.id),
    type: text("type").notNull(), // action.scheduled | action.booked | action.revised | wallet.synced | wallet.gap | ping
    owner: text("owner"), // the wallet it concerns; null for a ping
    body: text("body").notNull(), // {"type","timestamp","data"} as sent; with a template, the wallet's values spliced into it
    templateId: integer("template_id"), // an event_templates row (no foreign key: a column with one cannot be dropped by SQLite)
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("events_tenant_seq").on(t.tenantId, t.seq)],
);

// A tenant's webhook endpoint. The secret signs deliveries, so it is kept sealed (AES-256-GCM
// under the server's webhook key, src/events/secret-box.ts), never in the clear and never hashed.
export const webhookSubscriptions = sqliteTable(
  "webhook_subscriptions",
  {
    id: text("id").primaryKey(), // whs_ + 16 base32
    tenantId: integer("tenant_id")
      .notNull()
      .references(() => tenants.id),
    url: text("url").notNull(),
    events: text("events"), // comma-separated event types; null: all
    sealedSecrets: text("sealed_secrets").notNull(), // JSON array of sealed secrets, newest first
    createdAt: text("created_at").notNull(),
    removedAt: text("removed_at"),
  },
  (t) => [index("webhook_subscriptions_tenant").on(t.tenantId)],
);

// One delivery per event × subscription that wants it; `id` orders a subscription's deliveries.
// The worker claims a subscription's oldest pending delivery under a lease, counts the attempt
// (its fence) and records the outcome (docs/events.md#delivery-and-retries).
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    subscriptionId: text("subscription_id")
      .notNull()
      .references(() => webhookSubscriptions.id),
    eventSeq: integer("event_seq")
      .notNull()
      .references(() => events.seq),
    status: text("status").notNull(), // pending | delivered | failed
    attempts: integer("attempts").notNull(),
    dueSince: text("due_since").notNull(), // when the event was written: three days of retries count from here
    nextAttemptAt: text("next_attempt_at"),
    leaseUntil: text("lease_until"),
    lastAttemptAt: text("last_attempt_at"),
    lastStatus: integer("last_status"), // the receiver's HTTP status; null when none came
    lastAnswer: text("last_answer"), // its first 500 characters, or why nothing was sent
  },
  (t) => [
    index("webhook_deliveries_subscription").on(t.subscriptionId, t.id),
    index("webhook_deliveries_pending").on(t.subscriptionId, t.id).where(sql`status = 'pending'`),
    index("webhook_deliveries_due").on(t.nextAttemptAt).where(sql`status = 'pending'`),
  ],
);

// Read-only iCalendar URLs (`ca-ledger calendar-url`; docs/events.md#the-calendar): the token is
// the URL's only credential; only its SHA-256 is kept, as for API keys. Revoked, never deleted.
export const calendarTokens = sqliteTable(
  "calendar_tokens",
  {
    tokenSha256: text("token_sha256").primaryKey(),
    tenantId: integer("tenant_id")
      .notNull()
      .references(() => tenants.id),
    createdAt: text("created_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (t) => [index("calendar_tokens_tenant").on(t.tenantId)],
);
