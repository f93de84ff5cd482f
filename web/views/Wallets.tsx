// The tenant's wallets with their sync state; a wallet that is queued or running shows its
// progress live (the status route, asked every two seconds until the sync ends). Registering and
// removing a wallet need the wallets:sync scope; the form says so when the key lacks it, with the
// command that makes such a key (the same the API's 403 names). Removing asks to confirm first.
import type { SyncStatusResponse, WalletsResponse } from "@ca-ledger/client";
import { useEffect, useState } from "preact/hooks";
import { explain } from "../src/api.ts";
import { useLedger, walletsOf } from "../src/context.ts";
import { dateTimeText, words } from "../src/format.ts";
import { useLoad } from "../src/load.ts";
import { canSync } from "../src/session.ts";
import { keyCommandFor } from "../../src/domain/scopes.ts";
import { Await, Empty } from "./states.tsx";

const pollMs = 2000;
const active = (status: string) => status === "queued" || status === "running";

export function Wallets() {
  const ledger = useLedger();
  const loaded = useLoad("wallets", () => walletsOf(ledger));
  // Which wallet's removal is being confirmed lives here, above the list: a live event about the
  // wallet (its sync ending) reads the list again, and the confirmation must outlast that.
  const [confirming, setConfirming] = useState<string | null>(null);
  return (
    <section>
      <h1>Wallets</h1>
      <Register />
      <Await loaded={loaded} what="wallets">
        {(list) =>
          list.wallets.length === 0 ? (
            <Empty title="No wallets yet.">Register one above; its sync starts at once.</Empty>
          ) : (
            <WalletTable list={list} confirming={confirming} setConfirming={setConfirming} />
          )
        }
      </Await>
    </section>
  );
}

interface Confirming {
  confirming: string | null;
  setConfirming: (owner: string | null) => void;
}

function WalletTable({ list, confirming, setConfirming }: { list: WalletsResponse } & Confirming) {
  const allowed = canSync(useLedger().session);
  return (
    <>
      <p class="muted">
        {list.wallets.length} of {list.maxWallets} wallets for tenant {list.tenant}.
      </p>
      <table class="data" id="wallets">
        <thead>
          <tr>
            <th>Wallet</th>
            <th>Registered</th>
            <th>Sync</th>
            {allowed && <th />}
          </tr>
        </thead>
        <tbody>
          {list.wallets.map((w) => (
            <tr key={w.owner}>
              <td>
                <code>{w.owner}</code>
              </td>
              <td>{dateTimeText(w.registeredAt)}</td>
              <td>
                <SyncState owner={w.owner} initial={w.status} />
              </td>
              {allowed && (
                <td>
                  <Remove owner={w.owner} asking={confirming === w.owner} setAsking={(yes) => setConfirming(yes ? w.owner : null)} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** Stop following a wallet: a first click asks to confirm, saying what happens to its books. */
function Remove({ owner, asking, setAsking }: { owner: string; asking: boolean; setAsking: (yes: boolean) => void }) {
  const ledger = useLedger();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function remove() {
    setBusy(true);
    setError(null);
    try {
      await ledger.api.removeWallet(owner);
      setAsking(false);
      ledger.refresh();
    } catch (e) {
      setError(explain(e));
      setBusy(false);
    }
  }

  if (!asking)
    return (
      <button type="button" class="secondary remove" onClick={() => setAsking(true)}>
        Remove
      </button>
    );
  return (
    <div class="confirm-remove" role="alertdialog" aria-label="Confirm removal">
      <p>Stop following this wallet? Its syncs stop and its books leave this tenant's views; nothing is erased, and registering it again brings them back.</p>
      <button type="button" class="danger" disabled={busy} onClick={remove}>
        {busy ? "Removing…" : "Remove wallet"}
      </button>{" "}
      <button type="button" class="secondary" disabled={busy} onClick={() => setAsking(false)}>
        Cancel
      </button>
      {error && <div class="error-text">{error}</div>}
    </div>
  );
}

/** The wallet's sync state; while it is queued or running, asked again every two seconds. */
function SyncState({ owner, initial }: { owner: string; initial: string }) {
  const ledger = useLedger();
  const [status, setStatus] = useState<SyncStatusResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [failures, setFailures] = useState(0);
  const state = status?.status ?? initial;
  useEffect(() => {
    if (!active(state)) return;
    const timer = setTimeout(
      async () => {
        try {
          const next = await ledger.api.syncStatus(owner);
          setStatus(next);
          setError(null);
          // A finished sync changes holdings, income and actions: read them again when next shown.
          if (!active(next.status)) ledger.cache.clear();
        } catch (e) {
          setError(explain(e));
          setFailures((n) => n + 1); // keep polling: the next tick asks again
        }
      },
      status === null && failures === 0 ? 0 : pollMs,
    );
    return () => clearTimeout(timer);
  }, [state, status, failures, owner]);
  const progress = status?.progress;
  return (
    <div class="sync">
      <span class={`badge s-${state}`}>{words(state)}</span>
      {active(state) && (
        <span class="progress-line">
          <progress max={Math.max(1, progress?.total ?? 0)} value={progress?.done ?? 0} />
          {progress?.phase ? ` ${words(progress.phase)}` : " waiting for the worker"} {progress && progress.total > 0 && `${progress.done}/${progress.total}`}
        </span>
      )}
      {status && !active(state) && (
        <span class="muted">
          {" "}
          {status.transactionsFetched} transactions · finished {dateTimeText(status.finishedAt)}
        </span>
      )}
      {status?.gaps.length ? (
        <div class="muted">
          {status.gaps.length} gap(s): {status.gaps.map((g) => g.reason).join("; ")}
        </div>
      ) : null}
      {status?.error && <div class="error-text">{status.error}</div>}
      {error && <div class="error-text">{error}</div>}
    </div>
  );
}

function Register() {
  const ledger = useLedger();
  const [owner, setOwner] = useState("");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  // The wallet just asked for: its sync's progress shows under the form until it ends.
  const [tracked, setTracked] = useState<{ owner: string; status: string } | null>(null);
  const allowed = canSync(ledger.session);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setMessage(null);
    setTracked(null);
    try {
      const r = await ledger.api.requestSync(owner.trim());
      setMessage({ ok: true, text: `${r.registration === "registered" ? "Registered" : "Already registered"}; sync ${r.job === "enqueued" ? "queued" : "already pending"}.` });
      setTracked({ owner: r.owner, status: r.status });
      setOwner("");
      ledger.refresh();
    } catch (err) {
      setMessage({ ok: false, text: explain(err) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="register" onSubmit={submit}>
      <h2>Register a wallet</h2>
      {!allowed && (
        <p class="note" id="no-sync-scope">
          This key lacks the scope <code>wallets:sync</code>, so it can read but not register or remove wallets. An operator makes a key with it:{" "}
          <code>{keyCommandFor("wallets:sync", ledger.session.tenant)}</code>
        </p>
      )}
      <div class="row">
        <input
          id="register-owner"
          name="owner"
          placeholder="Solana wallet address (base58)"
          value={owner}
          disabled={!allowed || busy}
          onInput={(e) => setOwner((e.target as HTMLInputElement).value)}
          autocomplete="off"
          spellcheck={false}
          required
        />
        <button type="submit" disabled={!allowed || busy || owner.trim() === ""}>
          {busy ? "Registering…" : "Register and sync"}
        </button>
      </div>
      {message && (
        <p class={message.ok ? "ok-text" : "error-text"} role="status">
          {message.text}
        </p>
      )}
      {tracked && (
        <div class="tracked" id="register-progress">
          <code>{tracked.owner}</code> <SyncState key={tracked.owner} owner={tracked.owner} initial={tracked.status} />
        </div>
      )}
    </form>
  );
}
