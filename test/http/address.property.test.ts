// The lockout's address normaliser (src/http/address.ts), property-tested: every spelling of one
// address gives one failure budget, IPv6 is counted by /64, and nothing a client sends can throw.
// The oracle for IPv6 text is the WHATWG URL parser's own serialiser (RFC 5952 compression).
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { canonicalAddress, formatIpv6, lockoutNetwork, parseAddress } from "../../src/http/address.ts";

const runs = { numRuns: 500 };
const port = fc.integer({ min: 0, max: 65535 });
const groups = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 });
const isMapped = (g: number[]) => g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
const hex4 = (n: number) => n.toString(16).padStart(4, "0");

/** Every way this suite writes the same IPv6 address. */
function spellings(g: number[], p: number): string[] {
  const short = formatIpv6(g);
  return [
    g.map(hex4).join(":"), // full, leading zeros
    g.map((x) => x.toString(16)).join(":"), // full, no leading zeros
    g.map(hex4).join(":").toUpperCase(),
    short,
    short.toUpperCase(),
    `[${short}]`,
    `[${short}]:${p}`,
    `${short}%eth0`,
    ` ${short} `,
  ];
}

describe("IPv4: one budget per address, however it is written", () => {
  test("port, brackets and IPv4-mapped IPv6 all normalise to the dotted address", () => {
    fc.assert(
      fc.property(fc.ipV4(), port, (a, p) => {
        const [w, x, y, z] = a.split(".").map(Number) as [number, number, number, number];
        const forms = [a, `${a}:${p}`, `[${a}]`, `[${a}]:${p}`, `::ffff:${a}`, `::FFFF:${a}`, `[::ffff:${a}]:${p}`, `0:0:0:0:0:ffff:${a}`, `::ffff:${hex4((w << 8) | x)}:${hex4((y << 8) | z)}`];
        for (const f of forms) {
          expect(canonicalAddress(f)).toBe(a);
          expect(lockoutNetwork(f)).toBe(a);
        }
      }),
      runs,
    );
  });

  test("different addresses never share a budget, and never share one with IPv6", () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.ipV4(), groups, (a, b, g) => {
        if (a !== b) expect(lockoutNetwork(a)).not.toBe(lockoutNetwork(b));
        if (!isMapped(g)) expect(lockoutNetwork(formatIpv6(g))).not.toBe(lockoutNetwork(a));
      }),
      runs,
    );
  });

  test("leading zeros (octal in some parsers) and out-of-range parts are not addresses", () => {
    for (const bad of ["01.1.1.1", "1.1.1.256", "1.1.1", "1.1.1.1.1", "1.1.1.1:", "1.1.1.1:port", "1.1.1.1:123456", "[1.1.1.1", "[1.1.1.1]x"]) {
      expect(parseAddress(bad)).toBeNull();
    }
  });
});

describe("IPv6: canonical text, counted by /64", () => {
  test("every spelling parses to the same groups; the canonical text is the URL parser's", () => {
    fc.assert(
      fc.property(groups, port, (g, p) => {
        const canonical = canonicalAddress(formatIpv6(g));
        if (isMapped(g)) {
          expect(canonical).toBe(`${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`);
          return;
        }
        expect(`[${canonical}]`).toBe(new URL(`http://[${g.map(hex4).join(":")}]/`).hostname);
        for (const s of spellings(g, p)) expect(parseAddress(s)).toEqual({ version: 6, groups: g });
      }),
      runs,
    );
  });

  test("fast-check's own IPv6 texts (embedded IPv4 included) agree with the URL parser", () => {
    fc.assert(
      fc.property(fc.ipV6(), (a) => {
        const parsed = parseAddress(a);
        expect(parsed).not.toBeNull();
        // The URL parser refuses a few valid texts (e.g. `::0:0:0:0:0.0.0.0`): compare where it answers.
        const url = URL.canParse(`http://[${a}]/`) ? new URL(`http://[${a}]/`).hostname.slice(1, -1) : null;
        if (url !== null && parsed!.version === 6) expect(canonicalAddress(a)).toBe(url);
        if (url !== null && parsed!.version === 4) expect(url.startsWith("::ffff:")).toBe(true);
        expect(canonicalAddress(canonicalAddress(a)!)).toBe(canonicalAddress(a));
      }),
      runs,
    );
  });

  test("one budget per /64: the low 64 bits never matter, the high 64 always do", () => {
    fc.assert(
      fc.property(groups, groups, (a, b) => {
        fc.pre(!isMapped(a) && !isMapped(b));
        const sameNet = [...a.slice(0, 4), ...b.slice(4)];
        fc.pre(!isMapped(sameNet));
        expect(lockoutNetwork(formatIpv6(sameNet))).toBe(lockoutNetwork(formatIpv6(a)));
        const differ = a.slice(0, 4).some((x, i) => x !== b[i]);
        if (differ) expect(lockoutNetwork(formatIpv6(a))).not.toBe(lockoutNetwork(formatIpv6(b)));
      }),
      runs,
    );
  });

  test("the /64 label is the network's canonical text", () => {
    expect(lockoutNetwork("2001:DB8:0:1:abcd:ef01:2345:6789")).toBe("2001:db8:0:1::/64");
    expect(lockoutNetwork("[2001:db8::1]:443")).toBe("2001:db8::/64");
    expect(lockoutNetwork("::1")).toBe("::/64");
    expect(lockoutNetwork("fe80::1%eth0")).toBe("fe80::/64");
  });
});

describe("anything a client sends", () => {
  test("never throws; whatever parses is a fixed point of canonicalisation", () => {
    const junk = fc.oneof(fc.string(), fc.stringMatching(/^[0-9a-fA-F:.[\]%]{0,45}$/));
    fc.assert(
      fc.property(junk, (s) => {
        const c = canonicalAddress(s);
        if (c !== null) expect(canonicalAddress(c)).toBe(c);
      }),
      { numRuns: 3000 },
    );
  });

  test("names, empty strings and malformed IPv6 are not addresses", () => {
    for (const bad of ["", "unknown", "localhost", "::1::", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "::g", "1.2.3.4::", "::ffff:1.2.3.4:80", ":::"]) {
      expect(parseAddress(bad)).toBeNull();
    }
  });
});
