// Helpers the read models share: the dataset label, what the ledger holds, registration checks, paging.
import type { Sql } from "../sql/port.ts";
import type { DatasetLabel } from "../../../schemas/common.ts";
import type { V1Kind } from "../../domain/types.ts";
import { actionSql } from "../tables/actions.ts";
import { datasetLabelSql } from "../tables/dataset-label.ts";
import { ownerSql } from "../tables/owners.ts";
import { booksVisible, tenantWalletSql } from "../tables/tenant-wallets.ts";

export async function readDatasetLabel(db: Sql): Promise<DatasetLabel | null> {
  const row = await db.get(datasetLabelSql.read);
  return row ? { kind: row.kind, description: row.description } : null;
}

/** The label of a data dir that has none yet: live data is `mainnet` until a demo says otherwise. */
export async function datasetLabelOrDefault(db: Sql): Promise<DatasetLabel> {
  return (await readDatasetLabel(db)) ?? { kind: "mainnet", description: null };
}

export async function writeDatasetLabel(db: Sql, label: DatasetLabel, now = new Date()): Promise<void> {
  await db.run(datasetLabelSql.write, { kind: label.kind, description: label.description, at: now.toISOString() });
}

/** Whether the ledger follows or holds any wallet (live data, or a demo's). */
export async function holdsAnyWallet(db: Sql): Promise<boolean> {
  return (await db.get(ownerSql.any)) !== null;
}

/** How many actions the ledger holds (wallet × transition). */
export async function actionCount(db: Sql): Promise<number> {
  return (await db.get(actionSql.total))!.n;
}

/**
 * Whether this tenant registered the wallet, and whether it may see its books yet: only once its
 * own first sync of the wallet finished, whatever other tenants following it did before.
 */
export async function registration(db: Sql, tenantId: number, owner: string): Promise<{ booksVisible: boolean } | null> {
  const row = await db.get(tenantWalletSql.registered, { tenantId, owner });
  return row ? { booksVisible: booksVisible(row) } : null;
}

/**
 * The owner a read is given for a wallet whose books the tenant may not see yet: it matches no
 * row, so every read answers as for a wallet with nothing booked.
 */
export const NO_BOOKS = "";

/** Every wallet this tenant registered, with whether it may see its books yet (as above). */
export async function registrations(db: Sql, tenantId: number): Promise<{ owner: string; booksVisible: boolean }[]> {
  const rows = await db.all(tenantWalletSql.ofTenant, { tenantId });
  return rows.map((r) => ({ owner: r.owner, booksVisible: booksVisible(r) }));
}

export interface Page {
  limit: number;
  offset: number;
}

/** The v1 kinds a list keeps (`kind=` on /v1/income and /v1/journal); undefined keeps every kind. */
export type KindFilter = readonly V1Kind[] | undefined;

export function nextOffset(page: Page, returned: number, total: number): number | null {
  const next = page.offset + returned;
  return returned > 0 && next < total ? next : null;
}

export function parsePayload<T>(payload: string): T {
  return JSON.parse(payload) as T;
}
