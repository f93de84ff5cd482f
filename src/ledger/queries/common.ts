// Helpers the read models share: the dataset label, registration checks, paging.
import type { Database } from "bun:sqlite";
import type { DatasetLabel } from "../../../schemas/common.ts";

export function readDatasetLabel(sqlite: Database): DatasetLabel | null {
  const row = sqlite.query("SELECT kind, description FROM dataset_label WHERE id = 1").get() as DatasetLabel | null;
  return row ? { kind: row.kind, description: row.description } : null;
}

/** The label of a data dir that has none yet: live data is `mainnet` until a demo says otherwise. */
export function datasetLabelOrDefault(sqlite: Database): DatasetLabel {
  return readDatasetLabel(sqlite) ?? { kind: "mainnet", description: null };
}

export function writeDatasetLabel(sqlite: Database, label: DatasetLabel, now = new Date()): void {
  sqlite.query("INSERT INTO dataset_label (id, kind, description, created_at) VALUES (1, ?, ?, ?) ON CONFLICT(id) DO NOTHING").run(label.kind, label.description, now.toISOString());
}

/**
 * Whether this tenant registered the wallet, and whether it may see its books yet: only once its
 * own first sync of the wallet finished, whatever other tenants following it did before.
 */
export function registration(sqlite: Database, tenantId: number, owner: string): { booksVisible: boolean } | null {
  const row = sqlite.query("SELECT first_synced_at FROM tenant_wallets WHERE tenant_id = ? AND owner = ?").get(tenantId, owner) as { first_synced_at: string | null } | null;
  return row ? { booksVisible: row.first_synced_at !== null } : null;
}

/** Every wallet this tenant registered, with whether it may see its books yet (as above). */
export function registrations(sqlite: Database, tenantId: number): { owner: string; booksVisible: boolean }[] {
  const rows = sqlite.query("SELECT owner, first_synced_at FROM tenant_wallets WHERE tenant_id = ? ORDER BY owner").all(tenantId) as { owner: string; first_synced_at: string | null }[];
  return rows.map((r) => ({ owner: r.owner, booksVisible: r.first_synced_at !== null }));
}

export interface Page { limit: number; offset: number }

export function nextOffset(page: Page, returned: number, total: number): number | null {
  const next = page.offset + returned;
  return returned > 0 && next < total ? next : null;
}

export function parsePayload<T>(payload: string): T {
  return JSON.parse(payload) as T;
}
