// Client addresses as the auth lockout counts them. The same client must get one failure budget
// however its address is written: `1.1.1.1`, `1.1.1.1:1234`, `[1.1.1.1]` and `::ffff:1.1.1.1`
// are one IPv4 address, `2001:DB8::1` and `2001:0db8:0:0:0:0:0:1` one IPv6 address. And a
// single IPv6 host is normally handed a whole /64 (SLAAC, privacy addresses), so counting /128s
// would give it 2^64 budgets: IPv6 is counted by its /64 network.

export type IpAddress = { version: 4; octets: number[] } | { version: 6; groups: number[] };

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;
const PORT = /^:\d{1,5}$/;

/**
 * Parses an address as a socket or a proxy writes it: an optional `[...]` around it, an optional
 * `:port`, an optional IPv6 zone (`%eth0`). IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is IPv4.
 * Anything else (a name, leading zeros in IPv4, garbage) is null.
 */
export function parseAddress(raw: string): IpAddress | null {
  const s = raw.trim();
  let host = s;
  if (s.startsWith("[")) {
    const close = s.indexOf("]");
    const rest = s.slice(close + 1);
    if (close < 0 || (rest !== "" && !PORT.test(rest))) return null;
    host = s.slice(1, close);
  } else if (s.indexOf(":") === s.lastIndexOf(":") && s.includes(":")) {
    // One colon: IPv4 with a port (an IPv6 address has at least two).
    const colon = s.indexOf(":");
    if (!PORT.test(s.slice(colon))) return null;
    host = s.slice(0, colon);
  }
  if (IPV4.test(host)) return { version: 4, octets: host.split(".").map(Number) };
  const groups = parseIpv6(host.split("%")[0]!);
  if (!groups) return null;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) return { version: 4, octets: [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255] };
  return { version: 6, groups };
}

/** The eight 16-bit groups of an IPv6 address, or null. */
function parseIpv6(text: string): number[] | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const side = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const pieces = part.split(":");
    for (const [i, p] of pieces.entries()) {
      if (i === pieces.length - 1 && IPV4.test(p)) {
        const [a, b, c, d] = p.split(".").map(Number) as [number, number, number, number];
        out.push((a << 8) | b, (c << 8) | d);
      } else if (HEX_GROUP.test(p)) out.push(parseInt(p, 16));
      else return null;
    }
    return out;
  };
  const head = side(halves[0]!);
  const tail = halves.length === 2 ? side(halves[1]!) : [];
  if (!head || !tail) return null;
  // An embedded IPv4 is only allowed at the very end.
  if (halves.length === 2 && head.length && halves[0]!.split(":").some((p) => p.includes("."))) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...Array<number>(missing).fill(0), ...tail] : null;
}

/** RFC 5952 text: lowercase, no leading zeros, the longest run of two or more zero groups as `::`. */
export function formatIpv6(groups: number[]): string {
  let best = { at: -1, len: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.len && j - i >= 2) best = { at: i, len: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at < 0) return hex.join(":");
  return `${hex.slice(0, best.at).join(":")}::${hex.slice(best.at + best.len).join(":")}`;
}

/** The canonical text of an address (IPv4 dotted, IPv6 RFC 5952), or null when it is not one. */
export function canonicalAddress(raw: string): string | null {
  const a = parseAddress(raw);
  if (!a) return null;
  return a.version === 4 ? a.octets.join(".") : formatIpv6(a.groups);
}

/** What one failure budget covers: an IPv4 address, or an IPv6 /64 (`2001:db8:1:2::/64`). */
export function lockoutNetwork(raw: string): string | null {
  const a = parseAddress(raw);
  if (!a) return null;
  if (a.version === 4) return a.octets.join(".");
  return `${formatIpv6([...a.groups.slice(0, 4), 0, 0, 0, 0])}/64`;
}
