// Sign in with an API key, once. The key is posted to the server, which answers with an HttpOnly
// session cookie; the field is cleared and the key is not kept by the page.
import { useState } from "preact/hooks";
import { signIn, SignInError, type SessionView } from "../src/session.ts";

export function SignIn({ ended, onSignedIn }: { ended: boolean; onSignedIn: (session: SessionView) => void }) {
  const [key, setKey] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await signIn(key);
      setKey("");
      onSignedIn(session);
    } catch (err) {
      setKey("");
      setError(err instanceof SignInError ? err.message : "The server cannot be reached. Is ca-ledger still running?");
      setBusy(false);
    }
  }

  return (
    <main class="signin">
      <form onSubmit={submit} autocomplete="off">
        <h1>
          <img src="/ui/icon.svg" alt="" width="28" height="28" /> ca-ledger
        </h1>
        <p>Corporate actions and income of your tokenized stocks. Sign in with an API key.</p>
        {ended && (
          <p class="note" id="session-ended">
            Your session ended: it was signed out, it expired, or its key was revoked. Sign in again.
          </p>
        )}
        <label for="key">API key</label>
        <input
          id="key"
          name="key"
          type="password"
          placeholder="cal_…"
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          autocomplete="off"
          spellcheck={false}
          required
          autofocus
        />
        <button type="submit" disabled={busy || key.trim() === ""}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        {error && (
          <p class="error-text" role="alert">
            {error}
          </p>
        )}
        <p class="muted small">
          The key is sent once; the server keeps your session in an HttpOnly cookie and this page never stores the key. A key is created with <code>ca-ledger keys create</code>.
        </p>
      </form>
    </main>
  );
}
