// One action with everything behind it: its lifecycle, every issuer revision with its hash, the
// chain evidence, the six timestamps and its journal history.
import type { ActionDetail as Detail } from "@ca-ledger/client";
import type { ComponentChildren } from "preact";
import { useLedger } from "../src/context.ts";
import { dateTimeText, factorText, percentText, words } from "../src/format.ts";
import { useLoad } from "../src/load.ts";
import { href, useRoute } from "../src/route.ts";
import { Hash, Quantity, Usd } from "./amounts.tsx";
import { Await, Empty } from "./states.tsx";

export function ActionDetail({ id }: { id: string }) {
  const ledger = useLedger();
  const owner = useRoute().query.get("owner") ?? "";
  const loaded = useLoad(`action:${owner}:${id}`, () => ledger.api.v2.action(owner, id));
  return (
    <section>
      <p><a href={href("actions", null, { owner })}>← All actions of this wallet</a></p>
      <Await loaded={loaded} what="the action">
        {(action) => <DetailOf action={action} />}
      </Await>
    </section>
  );
}

function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return <><dt>{label}</dt><dd>{children}</dd></>;
}

function DetailOf({ action }: { action: Detail }) {
  return (
    <>
      <h1>
        {words(action.type)} · {action.symbol ?? action.mint}
        <span class={`badge t-${action.treatment}`}>{words(action.treatment)}</span>
        <span class={`badge l-${action.lifecycle.state}`}>{words(action.lifecycle.state)}</span>
      </h1>
      {action.warnings.length > 0 && <ul class="warnings">{action.warnings.map((w) => <li key={w}>{w}</li>)}</ul>}
      <dl class="facts">
        <Field label="Effective">{dateTimeText(action.effectiveAt)}</Field>
        <Field label="Quantity change"><Quantity value={action.quantityDisplay} /></Field>
        <Field label="Units before → after"><Quantity value={action.unitsBefore} decimals={action.decimals} /> → <Quantity value={action.unitsAfter} decimals={action.decimals} /></Field>
        {action.treatment === "income" && <Field label="Net USD"><Usd value={action.usd} /></Field>}
        {action.factor !== null && <Field label="Factor"><span title={action.factor}>{factorText(action.factor)}</span></Field>}
        {action.retentionRate !== null && <Field label="Retention">{percentText(action.retentionRate)}</Field>}
        <Field label="Validation">{words(action.validation.status)} ({action.validation.realInstances} real cases)</Field>
        {action.reason && <Field label="Why">{action.reason}</Field>}
        <Field label="Evidence hash"><Hash value={action.evidenceSha256} /></Field>
      </dl>
      <Lifecycle action={action} />
      <Revisions action={action} />
      <ChainEvidence action={action} />
      <Journal action={action} />
      <h2>Lineage</h2>
      <p>
        {action.lineageLink ? `${words(action.lineageLink.type)}: ${action.lineageLink.from} → ${action.lineageLink.to ?? "(terminated)"}. ` : "This action links no identities. "}
        <a href={href("lineage", action.mint)}>Lineage of {action.symbol ?? "this instrument"}</a>
      </p>
    </>
  );
}

function Lifecycle({ action }: { action: Detail }) {
  return (
    <>
      <h2>Lifecycle</h2>
      <ol class="steps" id="lifecycle">
        {action.lifecycle.steps.map((s, i) => (
          <li key={i}>
            <span class={`badge l-${s.state}`}>{words(s.state)}</span> <span class="muted">{dateTimeText(s.at)}</span>
            {s.revision && <span class="muted"> · revision {s.revision.eventId} v{s.revision.version}</span>}
            <div>{s.note}</div>
          </li>
        ))}
      </ol>
      <dl class="facts">
        <Field label="Issuer effective">{dateTimeText(action.timestamps.issuerEffectiveAt)}</Field>
        <Field label="Issuer created">{dateTimeText(action.timestamps.issuerCreatedAt)}</Field>
        <Field label="Configured activation">{dateTimeText(action.timestamps.configuredActivationAt)}</Field>
        <Field label="Published on chain">{dateTimeText(action.timestamps.publicationBlockTime)}</Field>
        <Field label="First seen active">{dateTimeText(action.timestamps.firstObservedActiveAt)}</Field>
        <Field label="Ingested">{dateTimeText(action.timestamps.ingestedAt)}</Field>
      </dl>
    </>
  );
}

function Revisions({ action }: { action: Detail }) {
  return (
    <>
      <h2>Issuer revisions ({action.revisions.length})</h2>
      {action.revisions.length === 0 ? (
        <Empty title="No issuer record matches this action." />
      ) : (
        <table class="data" id="revisions">
          <thead><tr><th>Event</th><th>Version</th><th>Status</th><th>Type</th><th>Standing</th><th>Ingested</th><th>SHA-256</th></tr></thead>
          <tbody>
            {action.revisions.map((r) => (
              <tr key={`${r.eventId}:${r.version}`} class={action.matched?.sha256 === r.sha256 ? "matched" : ""}>
                <td><code>{r.eventId}</code></td>
                <td>v{r.version}{r.edited && <span class="muted"> (edited)</span>}</td>
                <td>{r.status}</td>
                <td>{r.caType}</td>
                <td>{words(r.standing)}{action.matched?.sha256 === r.sha256 && <strong> · matched</strong>}</td>
                <td>{dateTimeText(r.ingestedAt)}</td>
                <td>
                  <Hash value={r.sha256} />
                  <details><summary>record</summary><pre>{JSON.stringify(r.record, null, 2)}</pre></details>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function ChainEvidence({ action }: { action: Detail }) {
  const c = action.chain;
  return (
    <>
      <h2>Chain evidence</h2>
      <dl class="facts" id="chain">
        <Field label="Signature">{c.signature ? <code class="hash">{c.signature}</code> : "— (not yet on chain)"}</Field>
        <Field label="Slot">{c.slot ?? "—"}</Field>
        <Field label="Block time">{dateTimeText(c.blockTime)}</Field>
        <Field label="Multiplier">
          <span title={c.multiplierOld ?? ""}>{factorText(c.multiplierOld, 12)}</span> → <span title={c.multiplierNew ?? ""}>{factorText(c.multiplierNew, 12)}</span>
        </Field>
        <Field label="Scheduled for">{dateTimeText(c.scheduledAt)}</Field>
        <Field label="Effective on chain">{dateTimeText(c.effectiveAt)}</Field>
        {c.updateSignature && <Field label="Update signature"><code class="hash">{c.updateSignature}</code></Field>}
        <Field label="Chain key"><Hash value={action.evidence.chainKey} /></Field>
        <Field label="Matched revision"><Hash value={action.evidence.matchedRevisionSha256} /></Field>
        <Field label="Raw balance">{action.rawBalance}</Field>
      </dl>
    </>
  );
}

function Journal({ action }: { action: Detail }) {
  return (
    <>
      <h2>Journal history</h2>
      {action.journal.length === 0 ? (
        <Empty title="Nothing booked for this action." >Actions that are not income or quantity changes (or only announced) have no journal entry.</Empty>
      ) : (
        <table class="data" id="journal">
          <thead><tr><th>#</th><th>Entry</th><th class="r">Units</th><th class="r">Income units</th><th class="r">USD</th><th>Why</th><th>Booked</th><th>Evidence</th></tr></thead>
          <tbody>
            {action.journal.map((j) => (
              <tr key={j.id}>
                <td>{j.id}</td>
                <td>{words(j.entryType)}{j.reversesId !== null && ` of #${j.reversesId}`}</td>
                <td class="r"><Quantity value={j.unitsDelta} decimals={action.decimals} /></td>
                <td class="r"><Quantity value={j.incomeUnits} decimals={action.decimals} /></td>
                <td class="r"><Usd value={j.usd} /></td>
                <td>{j.changeReason ?? "—"}</td>
                <td>{dateTimeText(j.createdAt)}</td>
                <td><Hash value={j.evidenceSha256} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
