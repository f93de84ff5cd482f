// The states every view shows instead of a blank: loading, failed (with what to do), empty.
import type { ComponentChildren } from "preact";
import { explain } from "../src/api.ts";
import type { Loaded } from "../src/load.ts";

export function Loading({ what }: { what: string }) {
  return (
    <div class="state loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      Loading {what}…
    </div>
  );
}

export function Failure({ error, retry, what }: { error: unknown; retry?: () => void; what: string }) {
  return (
    <div class="state failure" role="alert">
      <strong>Could not load {what}.</strong> {explain(error)}
      {retry && (
        <button type="button" class="secondary" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="state empty">
      <strong>{title}</strong>
      {children && <div>{children}</div>}
    </div>
  );
}

/** Renders the data once loaded, or the loading or failure state. */
export function Await<T>({ loaded, what, children }: { loaded: Loaded<T>; what: string; children: (data: T) => ComponentChildren }) {
  if (loaded.status === "loading") return <Loading what={what} />;
  if (loaded.status === "error") return <Failure error={loaded.error} retry={loaded.retry} what={what} />;
  return <>{children(loaded.data)}</>;
}
