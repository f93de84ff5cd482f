// Views live in the URL's fragment (#/actions/<id>?owner=…), so the server serves one page and
// the back button works. The fragment never holds the key or anything secret.
import { useEffect, useState } from "preact/hooks";

export const views = ["holdings", "income", "lots", "actions", "lineage", "wallets", "downloads"] as const;
export type View = (typeof views)[number];

export interface Route {
  view: View;
  id: string | null;
  query: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const [path = "", search = ""] = hash.replace(/^#\/?/, "").split("?");
  const [first, ...rest] = path.split("/").filter(Boolean);
  const view = (views as readonly string[]).includes(first ?? "") ? (first as View) : "holdings";
  return { view, id: rest.length ? decodeURIComponent(rest.join("/")) : null, query: new URLSearchParams(search) };
}

/** A fragment link: href("actions", id, { owner }). */
export function href(view: View, id?: string | null, query: Record<string, string | number | null | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== null && v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return `#/${view}${id ? "/" + encodeURIComponent(id) : ""}${s ? "?" + s : ""}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
