// The page: the sign-in form, or the signed-in shell (header, navigation, the current view).
import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { sessionClient } from "../src/api.ts";
import { LedgerContext, useLedger, type Ledger } from "../src/context.ts";
import { staleKeys, useLiveEvents, type LiveState } from "../src/live.ts";
import { useLoad } from "../src/load.ts";
import { href, useRoute, type View } from "../src/route.ts";
import { currentSession, signOut, type SessionState, type SessionView } from "../src/session.ts";
import { ActionDetail } from "./ActionDetail.tsx";
import { Actions } from "./Actions.tsx";
import { Downloads } from "./Downloads.tsx";
import { Holdings } from "./Holdings.tsx";
import { Income } from "./Income.tsx";
import { Lineage } from "./Lineage.tsx";
import { Lots } from "./Lots.tsx";
import { SignIn } from "./SignIn.tsx";
import { Failure, Loading } from "./states.tsx";
import { Wallets } from "./Wallets.tsx";

export function App() {
  const [state, setState] = useState<SessionState | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () => currentSession().then(setState, setError);
  useEffect(() => {
    void load();
  }, []);
  if (error)
    return (
      <main class="signin">
        <Failure
          error={error}
          what="the dashboard"
          retry={() => {
            setError(null);
            void load();
          }}
        />
      </main>
    );
  if (state === null)
    return (
      <main class="signin">
        <Loading what="the dashboard" />
      </main>
    );
  if (!state.signedIn) return <SignIn ended={state.ended} onSignedIn={setState} />;
  return <SignedIn session={state} onEnded={(ended) => setState({ signedIn: false, ended })} />;
}

const nav: { view: View; label: string }[] = [
  { view: "holdings", label: "Holdings" },
  { view: "income", label: "Income" },
  { view: "lots", label: "Lots & gains" },
  { view: "actions", label: "Actions" },
  { view: "lineage", label: "Lineage" },
  { view: "wallets", label: "Wallets" },
  { view: "downloads", label: "Downloads" },
];

function SignedIn({ session, onEnded }: { session: SessionView; onEnded: (ended: boolean) => void }) {
  const api = useMemo(() => sessionClient(session, () => onEnded(true)), [session]);
  const [cache, setCache] = useState(() => new Map<string, Promise<unknown>>());
  const ledger: Ledger = useMemo(() => ({ session, api, cache, refresh: () => setCache(new Map()) }), [session, api, cache]);
  // Each event of the live stream drops the reads it makes stale; the views showing them read again.
  const live = useLiveEvents((owner) =>
    setCache((c) => {
      const stale = staleKeys(c.keys(), owner);
      if (!stale.length) return c;
      const kept = new Map(c);
      for (const k of stale) kept.delete(k);
      return kept;
    }),
  );
  const route = useRoute();
  return (
    <LedgerContext.Provider value={ledger}>
      <header class="top">
        <a class="brand" href={href("holdings")}>
          <img src="/ui/icon.svg" alt="" width="22" height="22" /> ca-ledger
        </a>
        <nav>
          {nav.map((n) => (
            <a key={n.view} href={href(n.view)} class={route.view === n.view ? "current" : ""} aria-current={route.view === n.view ? "page" : undefined}>
              {n.label}
            </a>
          ))}
        </nav>
        <DatasetBadge />
        <LiveBadge live={live} />
        <div class="who">
          <span title={`key ${session.keyId}; scopes ${session.scopes.join(", ")}`}>
            tenant <strong>{session.tenant}</strong>
          </span>
          <button type="button" class="secondary" onClick={ledger.refresh} title="Read everything again">
            Refresh
          </button>
          <button
            type="button"
            class="secondary"
            id="sign-out"
            onClick={async () => {
              await signOut(session).catch(() => {});
              onEnded(false);
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main class="content">
        <Current view={route.view} id={route.id} />
      </main>
    </LedgerContext.Provider>
  );
}

/** Whether the page is listening to the live stream, and the last event it heard. */
function LiveBadge({ live }: { live: LiveState }) {
  const last = live.last ? `last event: ${live.last.type}${live.last.at ? ` at ${live.last.at}` : ""}` : "no event yet";
  return (
    <span
      id="live"
      class={`badge ${live.connected ? "live" : "offline"}`}
      data-last-event={live.last?.type ?? ""}
      title={live.connected ? `Updates as the ledger changes; ${last}` : "Not connected to the live stream: use Refresh"}
    >
      {live.connected ? "live" : "offline"}
    </span>
  );
}

/** Says so when the ledger is the synthetic demo (every API answer carries the label). */
function DatasetBadge() {
  const ledger = useLedger();
  const loaded = useLoad("health", () => ledger.api.health());
  const dataset = loaded.status === "ok" ? loaded.data.dataset : null;
  if (dataset?.kind !== "synthetic") return null;
  return (
    <span class="badge synthetic" title={dataset.description ?? ""}>
      Synthetic demo data
    </span>
  );
}

function Current({ view, id }: { view: View; id: string | null }): ComponentChildren {
  switch (view) {
    case "holdings":
      return <Holdings />;
    case "income":
      return <Income />;
    case "lots":
      return <Lots />;
    case "actions":
      return id ? <ActionDetail id={id} /> : <Actions />;
    case "lineage":
      return <Lineage mint={id} />;
    case "wallets":
      return <Wallets />;
    case "downloads":
      return <Downloads />;
  }
}
