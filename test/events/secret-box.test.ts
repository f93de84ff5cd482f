// Webhook secrets at rest: sealed with AES-256-GCM under the webhook key, which comes from
// WEBHOOK_SECRET_KEY or, for SQLite, a private key file in the data dir (docs/events.md#secrets-at-rest).
import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { generateSecret } from "../../src/domain/events/signature.ts";
import { type SecretBoxError, createSecretBox } from "../../src/events/secret-box.ts";
import { WEBHOOK_KEY_FILE, type WebhookKeyError, loadWebhookKey } from "../../src/events/webhook-key.ts";

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "ca-ledger-webhook-key-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

describe("sealing", () => {
  const box = createSecretBox(randomBytes(32));

  test("property: any secret opens again for its own subscription; the sealed text does not hold it", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.string({ minLength: 1, maxLength: 20 }), (bytes, subscription) => {
        const secret = generateSecret(() => bytes);
        const sealed = box.seal(secret, subscription);
        return box.open(sealed, subscription) === secret && !sealed.includes(secret.slice(6, 20)) && sealed.startsWith(`whbox1.${box.keyId}.`);
      }),
      { numRuns: 200 },
    );
  });

  test("sealing twice gives two texts (a new IV each time)", () => {
    const s = generateSecret(randomBytes);
    expect(box.seal(s, "sub_1")).not.toBe(box.seal(s, "sub_1"));
  });

  test("another key: a clear error naming both key fingerprints, never the key", () => {
    const key = randomBytes(32);
    const other = createSecretBox(key);
    const sealed = box.seal(generateSecret(randomBytes), "sub_1");
    let err: SecretBoxError | null = null;
    try {
      other.open(sealed, "sub_1");
    } catch (e) {
      err = e as SecretBoxError;
    }
    expect(err?.code).toBe("webhook_key_mismatch");
    expect(err!.message).toContain(box.keyId);
    expect(err!.message).toContain(other.keyId);
    expect(err!.message).toContain("WEBHOOK_SECRET_KEY");
    expect(err!.message).not.toContain(key.toString("base64"));
  });

  test("another subscription's row, a changed byte, or a truncated text does not open", () => {
    const sealed = box.seal(generateSecret(randomBytes), "sub_1");
    expect(codeOf(() => box.open(sealed, "sub_2"))).toBe("webhook_secret_unreadable");
    const parts = sealed.split(".");
    const body = Buffer.from(parts[3]!, "base64url");
    body[0]! ^= 1;
    expect(codeOf(() => box.open([...parts.slice(0, 3), body.toString("base64url")].join("."), "sub_1"))).toBe("webhook_secret_unreadable");
    expect(codeOf(() => box.open(sealed.slice(0, 40), "sub_1"))).toBe("webhook_secret_unreadable");
    expect(codeOf(() => box.open("whsec_plain", "sub_1"))).toBe("webhook_secret_unreadable");
  });
});

describe("the webhook key", () => {
  const b64 = randomBytes(32).toString("base64");

  test("WEBHOOK_SECRET_KEY wins, in base64 or base64url; a wrong length is an error that never repeats it", () => {
    const k = loadWebhookKey({ env: b64, engine: "postgres", dataDir: "/nonexistent" });
    expect(k.source).toBe("env");
    expect(Buffer.from(k.key).toString("base64")).toBe(b64);
    expect(Buffer.from(loadWebhookKey({ env: Buffer.from(k.key).toString("base64url"), engine: "sqlite", dataDir: "/nonexistent" }).key)).toEqual(Buffer.from(k.key));
    for (const bad of ["c2hvcnQ=", "not base64 at all!", randomBytes(33).toString("base64")]) {
      let err: WebhookKeyError | null = null;
      try {
        loadWebhookKey({ env: bad, engine: "sqlite", dataDir: "/nonexistent" });
      } catch (e) {
        err = e as WebhookKeyError;
      }
      expect(err?.code).toBe("webhook_key_invalid");
      expect(err!.message).toContain("openssl rand -base64 32");
      expect(err!.message).not.toContain(bad);
    }
  });

  test("PostgreSQL without WEBHOOK_SECRET_KEY: required, with the reason", () => {
    let err: WebhookKeyError | null = null;
    try {
      loadWebhookKey({ env: undefined, engine: "postgres", dataDir: tempDir() });
    } catch (e) {
      err = e as WebhookKeyError;
    }
    expect(err?.code).toBe("webhook_key_required");
    expect(err!.message).toContain("every server sharing the database");
  });

  test("SQLite without it: a key file created 0600 in the data dir, then read again; no draft left behind", () => {
    const dir = join(tempDir(), "nested");
    const first = loadWebhookKey({ env: "", engine: "sqlite", dataDir: dir });
    expect(first.source).toBe("created");
    expect(first.path).toBe(join(dir, WEBHOOK_KEY_FILE));
    expect(statSync(first.path!).mode & 0o777).toBe(0o600);
    const again = loadWebhookKey({ env: undefined, engine: "sqlite", dataDir: dir });
    expect(again.source).toBe("file");
    expect(Buffer.from(again.key)).toEqual(Buffer.from(first.key));
    expect(readdirSync(dir)).toEqual([WEBHOOK_KEY_FILE]);
    // What one server sealed, the next start opens.
    const sealed = createSecretBox(first.key).seal("whsec_x", "s");
    expect(createSecretBox(again.key).open(sealed, "s")).toBe("whsec_x");
  });

  test("a key file others can read is refused, with the command that fixes it", () => {
    const dir = tempDir();
    writeFileSync(join(dir, WEBHOOK_KEY_FILE), b64 + "\n", { mode: 0o644 });
    chmodSync(join(dir, WEBHOOK_KEY_FILE), 0o644);
    let err: WebhookKeyError | null = null;
    try {
      loadWebhookKey({ env: undefined, engine: "sqlite", dataDir: dir });
    } catch (e) {
      err = e as WebhookKeyError;
    }
    expect(err?.code).toBe("webhook_key_file_exposed");
    expect(err!.message).toContain("chmod 600");
    chmodSync(join(dir, WEBHOOK_KEY_FILE), 0o600);
    expect(loadWebhookKey({ env: undefined, engine: "sqlite", dataDir: dir }).source).toBe("file");
    expect(readFileSync(join(dir, WEBHOOK_KEY_FILE), "utf8").trim()).toBe(b64);
  });
});
