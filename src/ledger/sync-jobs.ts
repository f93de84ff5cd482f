// A sync job's row as the ledger stores it (one per tenant × wallet; src/sync/queue.ts runs the
// queue). Here, below both, so the ledger's reads of a wallet's status need nothing of src/sync.
export type JobStatus = "queued" | "running" | "complete" | "partial" | "failed";

export interface JobRow {
  id: number; tenant_id: number; owner: string; status: JobStatus; requested_at: string; started_at: string | null;
  finished_at: string | null; lease_until: string | null; attempts: number; next_retry_at: string | null;
  phase: string | null; progress_done: number; progress_total: number; transactions_fetched: number; gaps: string; error: string | null;
  next_sync_at: string | null; deadline_passed_at: string | null;
}
