// What the ledger's changes tell the tenants that follow a wallet (docs/events.md#event-types).
// Each event is written to the outbox (outbox.ts) inside the transaction of the
// change that causes it, so it exists if and only if the change does:
// - a booking chunk: `action.booked` for an action's first recognition, `action.revised` when a
//   booked action's entries were reversed (and replaced, or not), `action.scheduled` when an action
//   is newly pending (a multiplier change scheduled on chain, or announced by the issuer);
// - the end of a sync: `wallet.synced` when the wallet's journal has entries the tenant was not
//   yet told of (and always at the end of its first sync: registration ends there), `wallet.gap`
//   when the sync ended with named gaps other than the last sync's.
// A tenant is told of a wallet's actions once its own first sync of the wallet has finished, as it
// sees the wallet's books only from then on; the history that sync books is not replayed as
// events, the first `wallet.synced` says the books are there. Each tenant gets its own events
// (one row each): a subscription never sees another tenant's wallet.
import type { EventType } from "../domain/events/types.ts";
import type { LifecycleState } from "../domain/types.ts";
import { eventText, type ActionData } from "../events/bodies.ts";
import { groupBy } from "../domain/group.ts";
import { writeEvent, type StoredEvent } from "./outbox.ts";
import { actionItemParts, itemText, storedValidations, type ItemParts } from "./action-item.ts";
import { joinedValues } from "./action-rows.ts";
import { eventSql } from "./tables/events.ts";
import type { Sql } from "./sql/port.ts";
import { actionSql } from "./tables/actions.ts";
import { journalSql } from "./tables/journal.ts";
import { syncJobSql, walletStatusFromRow } from "./tables/sync-jobs.ts";
import { tenantWalletSql } from "./tables/tenant-wallets.ts";

/** States in which an action is pending: known before it takes force. */
const PENDING: ReadonlySet<LifecycleState> = new Set(["announced", "confirmed"]);

/** What a booking chunk's events need from before its writes (see bookingEventsBefore). */
export interface BookingWatch {
  /** The tenants that see each wallet's books; empty: nobody is told, nothing more was read. */
  tenants: Map<string, number[]>;
  /** The newest journal entry before the chunk's: its entries are the ones after. */
  journalBefore: number;
  /** Pending actions of the chunk whose stored state was another (or which are new). */
  newlyPending: { owner: string; id: string }[];
  /** The list items of actions the chunk deletes, read while they were there. */
  goneItems: Map<string, ItemParts>;
}

/**
 * Read inside a booking chunk's transaction before it writes: who is told of these wallets, the
 * journal's end, the actions becoming pending, and the actions about to go.
 */
export async function bookingEventsBefore(
  tx: Sql,
  chunk: { owners: string[]; actions: { id: string; owner: string; lifecycle: { state: LifecycleState } }[]; gone: { id: string; owner: string }[] },
): Promise<BookingWatch> {
  const rows = await tx.all(tenantWalletSql.watchersOf, { owners: chunk.owners });
  const tenants = new Map([...groupBy(rows, (r) => r.owner)].map(([owner, rs]) => [owner, rs.map((r) => Number(r.tenant_id))]));
  const watch: BookingWatch = { tenants, journalBefore: 0, newlyPending: [], goneItems: new Map() };
  if (!tenants.size) return watch;
  watch.journalBefore = Number((await tx.get(journalSql.newestId, {}))!.id ?? 0);
  const pending = chunk.actions.filter((a) => tenants.has(a.owner) && PENDING.has(a.lifecycle.state));
  if (pending.length) {
    const stored = new Map((await tx.all(actionSql.statesOf, { ids: pending.map((a) => a.id) })).map((r) => [r.id, r.state]));
    watch.newlyPending = pending.filter((a) => stored.get(a.id) !== a.lifecycle.state).map((a) => ({ owner: a.owner, id: a.id }));
  }
  const gone = chunk.gone.filter((g) => tenants.has(g.owner));
  const validations = gone.length ? await storedValidations(tx) : null;
  for (const g of gone) {
    const item = await actionItemParts(tx, g.owner, g.id, validations!);
    if (item) watch.goneItems.set(g.id, item);
  }
  return watch;
}

/**
 * Written inside the chunk's transaction after its actions and journal entries: one event per
 * changed action for each tenant that sees its wallet. Returns how many events were written.
 */
export async function writeBookingEvents(tx: Sql, watch: BookingWatch, at: Date): Promise<number> {
  if (!watch.tenants.size) return 0;
  const told = new Map<string, { owner: string; type: EventType }>();
  for (const p of watch.newlyPending) told.set(p.id, { owner: p.owner, type: "action.scheduled" });
  const entries = await tx.all(journalSql.afterOfOwners, { after: watch.journalBefore, owners: [...watch.tenants.keys()] });
  for (const e of entries) {
    // A reversal among the action's new entries: its booking was changed, not made.
    const type: EventType = e.entry_type === "reversal" || told.get(e.action_id)?.type === "action.revised" ? "action.revised" : "action.booked";
    told.set(e.action_id, { owner: e.owner, type });
  }
  if (!told.size) return 0;
  let written = 0;
  const validations = await storedValidations(tx);
  const templates = new Map<string, number>();
  for (const [id, { owner, type }] of told) {
    const item = (await actionItemParts(tx, owner, id, validations)) ?? watch.goneItems.get(id);
    if (!item) continue;
    const text = itemText(item);
    const body = eventText(type, at, JSON.parse(text) as ActionData);
    const stored = await storedAsTemplate(tx, templates, body, text, item);
    for (const tenantId of watch.tenants.get(owner) ?? []) {
      await writeEvent(tx, { tenantId, type, owner, body, stored, at });
      written++;
    }
  }
  return written;
}

/**
 * An action's event as the outbox stores it (docs/events.md#what-the-outbox-stores): the wallet's
 * values, and the body with the item's template in place of the item, shared by every event of
 * the chunk with the same text around the values (one type, one timestamp, one action text). The
 * form is kept only if the body is the item text between `{"type":…,"timestamp":…,"data":` and
 * `}`, else (never, as events are serialized today) the body is whole. Then splicing the values
 * into the template gives the body back: the item is its template with the values spliced in, and
 * the text around it is JSON, which holds no slot mark.
 */
async function storedAsTemplate(tx: Sql, templates: Map<string, number>, body: string, text: string, item: ItemParts): Promise<StoredEvent | undefined> {
  const head = body.length - text.length - 1;
  if (head < 0 || body.slice(head) !== `${text}}`) return undefined;
  const template = `${body.slice(0, head)}${item.template}}`;
  const values = joinedValues(item.values);
  let templateId = templates.get(template);
  if (templateId === undefined) {
    templateId = Number((await tx.get(eventSql.insertTemplate, { text: template }))!.id);
    templates.set(template, templateId);
  }
  return { templateId, values };
}

/** A job's tenant and wallet, and what its last sync had told, read before the job is finished. */
export interface SyncEndWatch {
  tenantId: number;
  owner: string;
  firstSync: boolean;
  syncedJournalId: number | null;
  previousGaps: string;
}

export async function syncEndBefore(tx: Sql, jobId: number): Promise<SyncEndWatch | null> {
  const r = await tx.get(syncJobSql.syncEndWatch, { id: jobId });
  if (!r) return null; // the wallet was removed meanwhile: nobody is told
  return {
    tenantId: Number(r.tenant_id),
    owner: r.owner,
    firstSync: r.first_synced_at === null,
    syncedJournalId: r.synced_journal_id === null ? null : Number(r.synced_journal_id),
    previousGaps: r.gaps,
  };
}

/** A set of gaps as one comparable text (addresses and reasons, in order). */
const gapKey = (gaps: { address: string; reason: string }[]): string => JSON.stringify(gaps.map((g) => [g.address, g.reason]).sort());

/** Written inside the transaction that finishes the job, after it: `wallet.synced` and `wallet.gap`. */
export async function writeSyncEndEvents(tx: Sql, watch: SyncEndWatch, gaps: { address: string; reason: string }[], at: Date): Promise<EventType[]> {
  const { tenantId, owner } = watch;
  const job = await tx.get(syncJobSql.ofWallet, { tenantId, owner });
  if (!job) return [];
  const status = walletStatusFromRow(owner, job);
  const written: EventType[] = [];
  const newest = Number((await tx.get(journalSql.newestIdOfOwner, { owner }))!.id ?? 0);
  if (watch.firstSync || newest > (watch.syncedJournalId ?? 0)) {
    await writeEvent(tx, { tenantId, type: "wallet.synced", owner, body: eventText("wallet.synced", at, status), at });
    await tx.run(tenantWalletSql.setSyncedJournal, { tenantId, owner, journalId: newest || null });
    written.push("wallet.synced");
  }
  if (gaps.length && gapKey(gaps) !== gapKey(JSON.parse(watch.previousGaps) as { address: string; reason: string }[])) {
    await writeEvent(tx, { tenantId, type: "wallet.gap", owner, body: eventText("wallet.gap", at, status), at });
    written.push("wallet.gap");
  }
  return written;
}
