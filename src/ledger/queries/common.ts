// Helpers the read models share: the dataset label, registration checks, paging.
import type { Sql } from "../sql/port.ts";
import type { DatasetLabel } from "../../../schemas/common.ts";
import type { V1Kind } from "../../domain/types.ts";

export async function readDatasetLabel(db: Sql): Promise<DatasetLabel | null> {
  const row = await db.get<DatasetLabel>("SELECT kind, description FROM dataset_label WHERE id = 1");
  return row ? { kind: row.kind, description: row.description } : null;
}

/** The label of a data dir that has none yet: live data is `mainnet` until a demo says otherwise. */
export async function datasetLabelOrDefault(db: Sql): Promise<DatasetLabel> {
  return (await readDatasetLabel(db)) ?? { kind: "mainnet", description: null };
}

export async function writeDatasetLabel(db: Sql, label: DatasetLabel, now = new Date()): Promise<void> {
  await db.run("INSERT INTO dataset_label (id, kind, description, created_at) VALUES (1, ?, ?, ?) ON CONFLICT(id) DO NOTHING", label.kind, label.description, now.toISOString());
}

/**
 * Whether this tenant registered the wallet, and whether it may see its books yet: only once its
 * own first sync of the wallet finished, whatever other tenants following it did before.
 */
export async function registration(db: Sql, tenantId: number, owner: string): Promise<{ booksVisible: boolean } | null> {
  const row = await db.get<{ first_synced_at: string | null }>("SELECT first_synced_at FROM tenant_wallets WHERE tenant_id = ? AND owner = ?", tenantId, owner);
  return row ? { booksVisible: row.first_synced_at !== null } : null;
}

/** Every wallet this tenant registered, with whether it may see its books yet (as above). */
export async function registrations(db: Sql, tenantId: number): Promise<{ owner: string; booksVisible: boolean }[]> {
  const rows = await db.all<{ owner: string; first_synced_at: string | null }>("SELECT owner, first_synced_at FROM tenant_wallets WHERE tenant_id = ? ORDER BY owner", tenantId);
  return rows.map((r) => ({ owner: r.owner, booksVisible: r.first_synced_at !== null }));
}

export interface Page { limit: number; offset: number }

/** The v1 kinds a list keeps (`kind=` on /v1/income and /v1/journal); undefined keeps every kind. */
export type KindFilter = readonly V1Kind[] | undefined;

/** SQL for "one of the kinds in the JSON list given as parameter `n`" (both engines read json_each). */
export const kindList = (n: number): string => `(SELECT value FROM json_each(?${n}))`;

export function nextOffset(page: Page, returned: number, total: number): number | null {
  const next = page.offset + returned;
  return returned > 0 && next < total ? next : null;
}

export function parsePayload<T>(payload: string): T {
  return JSON.parse(payload) as T;
}
