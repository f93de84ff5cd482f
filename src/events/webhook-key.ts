// Where the webhook key comes from (docs/events.md#secrets-at-rest). WEBHOOK_SECRET_KEY (32 random
// bytes, base64) wins. Without it, a SQLite ledger keeps its key in a file beside the database,
// created on first use readable by its owner only; a PostgreSQL ledger requires the variable,
// because every server sharing the database must open the same secrets and a file on one machine
// is not shared. The key never appears in a message, a log or the database.
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";

export const WEBHOOK_KEY_ENV = "WEBHOOK_SECRET_KEY";
export const WEBHOOK_KEY_FILE = "webhook-secret.key";
const KEY_BYTES = 32;

export type WebhookKeyErrorCode = "webhook_key_invalid" | "webhook_key_required" | "webhook_key_file_exposed";

export class WebhookKeyError extends Error {
  constructor(
    readonly code: WebhookKeyErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "WebhookKeyError";
  }
}

/** 32 bytes from their base64 (standard or URL-safe) text; `where` names the source in the error. */
export function parseWebhookKey(text: string, where: string): Uint8Array {
  const t = text.trim();
  const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(t) ? Buffer.from(t.replace(/-/g, "+").replace(/_/g, "/"), "base64") : Buffer.alloc(0);
  if (bytes.length !== KEY_BYTES) {
    throw new WebhookKeyError("webhook_key_invalid", `${where} must be ${KEY_BYTES} random bytes in base64 (make one with: openssl rand -base64 32).`);
  }
  return new Uint8Array(bytes);
}

export interface WebhookKey {
  key: Uint8Array;
  /** env: from WEBHOOK_SECRET_KEY; file: read from the data dir; created: a new file was written. */
  source: "env" | "file" | "created";
  /** The key file's path when the key lives in one. */
  path: string | null;
}

/**
 * The webhook key for this ledger. `engine` is the ledger's: with postgres the variable is
 * required. The key file is created with mode 0600; two processes starting at once end up with
 * the same key.
 */
export function loadWebhookKey(p: { env: string | undefined; engine: "sqlite" | "postgres"; dataDir: string; randomBytes?: (n: number) => Uint8Array }): WebhookKey {
  if (p.env !== undefined && p.env.trim() !== "") return { key: parseWebhookKey(p.env, WEBHOOK_KEY_ENV), source: "env", path: null };
  if (p.engine === "postgres") {
    throw new WebhookKeyError(
      "webhook_key_required",
      `${WEBHOOK_KEY_ENV} is required with a PostgreSQL ledger: every server sharing the database signs with the same secrets, so all of them need the same key (make one with: openssl rand -base64 32).`,
    );
  }
  const path = join(p.dataDir, WEBHOOK_KEY_FILE);
  if (!existsSync(path)) {
    mkdirSync(p.dataDir, { recursive: true });
    const text = Buffer.from((p.randomBytes ?? randomBytes)(KEY_BYTES)).toString("base64") + "\n";
    // Written whole under a private name, then linked into place: link fails if the name exists,
    // so a process starting at the same moment never reads a half-written key, and the first one wins.
    const draft = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.draft`;
    const fd = openSync(draft, "wx", 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(draft, path);
      return { key: parseWebhookKey(text, path), source: "created", path };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    } finally {
      rmSync(draft, { force: true });
    }
  }
  if (process.platform !== "win32" && (statSync(path).mode & 0o077) !== 0) {
    throw new WebhookKeyError("webhook_key_file_exposed", `${path} can be read by other users; make it private with: chmod 600 ${path}`);
  }
  return { key: parseWebhookKey(readFileSync(path, "utf8"), path), source: "file", path };
}
