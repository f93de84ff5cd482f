// Which Host headers the server answers (docs/api.md#host-names). A page on another site can
// point its own name at 127.0.0.1 (DNS rebinding) and then call this server as its own origin:
// read what needs no key, and spend the operator's failed-key budget until the real key is
// locked out. Its requests carry its own name as Host, so the server answers only names it was
// told are its own: `localhost`, the names in ALLOWED_HOSTS, and IP addresses. An IP address
// cannot be rebound (the browser's origin is then the address itself, and a page there is
// already a cross-site page), so a health check or a client that uses the machine's address,
// whatever it is bound to, is answered.
import type { Config } from "../config.ts";
import { parseAddress } from "./address.ts";
import { remembered } from "./remembered.ts";

/** The host name of a Host header's value (`name`, `name:port`, `[v6]:port`), lowercased, without a final dot. */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  const name = h.startsWith("[") ? h.slice(0, h.indexOf("]") + 1) : h.includes(":") ? h.slice(0, h.indexOf(":")) : h;
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

export function hostAllowList(config: Pick<Config, "allowedHosts">): (host: string) => boolean {
  const names = new Set(["localhost", ...config.allowedHosts]);
  return remembered((host) => {
    const name = hostName(host);
    if (name === "") return false;
    return names.has(name) || (parseAddress(name) !== null && !name.includes("%"));
  });
}
