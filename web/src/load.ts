// One hook for every read: loading, loaded or failed, with a retry; cached by key. The state
// remembers the key it belongs to, so a new key (another year, another wallet) shows as loading
// at once, never the previous key's data for a frame.
import { useCallback, useEffect, useState } from "preact/hooks";
import { cached } from "./api.ts";
import { useLedger } from "./context.ts";

export type Loaded<T> = { status: "loading" } | { status: "ok"; data: T } | { status: "error"; error: unknown; retry: () => void };

const loading = { status: "loading" } as const;

export function useLoad<T>(key: string, load: () => Promise<T>): Loaded<T> {
  const ledger = useLedger();
  const [state, setState] = useState<{ key: string; loaded: Loaded<T> }>({ key, loaded: loading });
  const [attempt, setAttempt] = useState(0);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  useEffect(() => {
    let live = true;
    setState({ key, loaded: loading });
    cached(ledger.cache, key, load).then(
      (data) => live && setState({ key, loaded: { status: "ok", data } }),
      (error) => live && setState({ key, loaded: { status: "error", error, retry } }),
    );
    return () => {
      live = false;
    };
  }, [key, attempt, ledger.cache]);
  return state.key === key ? state.loaded : loading;
}
