// One hook for every read: loading, loaded or failed, with a retry; cached by key.
import { useCallback, useEffect, useState } from "preact/hooks";
import { cached } from "./api.ts";
import { useLedger } from "./context.ts";

export type Loaded<T> = { status: "loading" } | { status: "ok"; data: T } | { status: "error"; error: unknown; retry: () => void };

export function useLoad<T>(key: string, load: () => Promise<T>): Loaded<T> {
  const ledger = useLedger();
  const [state, setState] = useState<Loaded<T>>({ status: "loading" });
  const [attempt, setAttempt] = useState(0);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  useEffect(() => {
    let live = true;
    setState({ status: "loading" });
    cached(ledger.cache, key, load).then(
      (data) => live && setState({ status: "ok", data }),
      (error) => live && setState({ status: "error", error, retry }),
    );
    return () => { live = false; };
  }, [key, attempt, ledger.cache]);
  return state;
}
