// The v1 income detail: the entry, the chain block, the classification evidence (which reads
// `unclassified` for types v1 does not book) and the entry's journal.
import type { DatasetLabel } from "../../../schemas/common.ts";
import type { ActionRecord } from "../../domain/types.ts";
import type { V1Entry } from "../../ledger/projections.ts";
import type { journalEntry } from "../../ledger/queries/journal.ts";

export function incomeDetail(d: { entry: V1Entry; action: ActionRecord; journal: ReturnType<typeof journalEntry>[] }, dataset: DatasetLabel) {
  const a = d.action;
  const matched = a.matched ? a.revisions.find((r) => r.eventId === a.matched!.eventId && r.version === a.matched!.version) : undefined;
  return {
    ...d.entry,
    dataset,
    chain: {
      signature: a.chain.signature ?? "",
      scheduledAt: a.chain.scheduledAt,
      effectiveAt: a.chain.effectiveAt ?? a.effectiveAt!,
      multiplierOld: a.chain.multiplierOld ?? "0",
      multiplierNew: a.chain.multiplierNew ?? "0",
    },
    evidence: {
      sha256: a.evidenceSha256,
      classification: { result: a.v1.classificationResult, reason: a.reason },
      issuerRecord: matched ? { eventId: matched.eventId, version: matched.version, sha256: matched.sha256, record: matched.record as unknown as Record<string, unknown> } : null,
    },
    journal: d.journal,
  };
}
