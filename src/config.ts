// Every setting in one table: its environment variable, its flag, its default, its meaning.
// A flag wins over the environment; the environment wins over the default.
import { homedir } from "node:os";
import { join } from "node:path";
import { isAddress } from "@solana/kit";
import { DEFAULT_STABLECOINS } from "./domain/lots/stablecoins.ts";
import { LOT_METHODS, type LotMethod, TAX_TREATMENTS, type TaxTreatment } from "./domain/lots/types.ts";

export interface Setting {
  key: keyof Config;
  env: string;
  flag: string;
  default: string;
  description: string;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** A PostgreSQL ledger's URL; null: SQLite in the data dir. */
  databaseUrl: string | null;
  rateLimitPerMinute: number;
  authFailuresPerMinute: number;
  trustProxy: boolean;
  /** Host names the server answers to besides IP addresses and localhost (docs/api.md#host-names). */
  allowedHosts: string[];
  solanaRpcUrl: string;
  xstocksApiUrl: string;
  issuerPollSeconds: number;
  issuerFeedMaxMib: number;
  issuerFeedMaxRecords: number;
  mintPollSeconds: number;
  logLevel: "debug" | "info" | "warn" | "error";
  logRequests: boolean;
  maxWallets: number;
  rpcConcurrency: number;
  rpcSpacingMs: number;
  resyncSeconds: number;
  syncConcurrency: number;
  jobDeadlineSeconds: number;
  maxSignaturePages: number;
  /** The reading of reinvested income reports use unless a request names one (docs/lots.md#two-treatments). */
  taxTreatment: TaxTreatment;
  /** Which lot a sale takes first unless a request names a method (docs/lots.md#methods). */
  lotMethod: LotMethod;
  /** The USD stablecoin mints whose change prices a movement (docs/lots.md#stablecoins). */
  stablecoins: string[];
}

/**
 * The data dir when neither the flag nor CA_LEDGER_DATA_DIR names one. The demo has its own, so
 * `serve --demo` never writes into the folder that holds (or will hold) live data.
 */
export function defaultDataDir(env: Record<string, string | undefined>, demo = false): string {
  const name = demo ? "ca-ledger-demo" : "ca-ledger";
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, name);
  return join(env.HOME || homedir(), ".local", "share", name);
}

export const settings: Setting[] = [
  { key: "port", env: "PORT", flag: "port", default: "4600", description: "TCP port to listen on" },
  { key: "host", env: "HOST", flag: "host", default: "127.0.0.1", description: "Address to bind" },
  {
    key: "dataDir",
    env: "CA_LEDGER_DATA_DIR",
    flag: "data-dir",
    default: "$XDG_DATA_HOME/ca-ledger or ~/.local/share/ca-ledger; with --demo, ca-ledger-demo there (never CA_LEDGER_DATA_DIR)",
    description: "Folder holding ledger.db",
  },
  {
    key: "databaseUrl",
    env: "DATABASE_URL",
    flag: "database-url",
    default: "none (SQLite in the data dir)",
    description: "PostgreSQL (15 or later) URL, postgres://user:password@host:port/database: the whole ledger lives there instead of DIR/ledger.db",
  },
  { key: "rateLimitPerMinute", env: "RATE_LIMIT_PER_MINUTE", flag: "rate-limit-per-minute", default: "120", description: "Requests per key per minute before 429 rate_limited" },
  {
    key: "authFailuresPerMinute",
    env: "AUTH_FAILURES_PER_MINUTE",
    flag: "auth-failures-per-minute",
    default: "20",
    description: "Failed key attempts per address per minute before 429 auth_locked_out",
  },
  { key: "trustProxy", env: "TRUST_PROXY", flag: "trust-proxy", default: "false", description: "Take the client address from x-forwarded-for (only behind your own proxy)" },
  {
    key: "allowedHosts",
    env: "ALLOWED_HOSTS",
    flag: "allowed-hosts",
    default: "none (IP addresses and localhost only)",
    description:
      "Comma-separated host names the server answers to besides IP addresses and localhost (the names a browser or proxy uses to reach it); any other Host header is refused with 421 host_not_allowed",
  },
  { key: "solanaRpcUrl", env: "SOLANA_RPC_URL", flag: "solana-rpc-url", default: "https://api.mainnet-beta.solana.com", description: "Solana JSON-RPC endpoint" },
  {
    key: "xstocksApiUrl",
    env: "XSTOCKS_API_URL",
    flag: "xstocks-api-url",
    default: "https://api.xstocks.fi/api/v2",
    description: "xStocks public API base; `off` turns the issuer feed off (records then come from `ca-ledger import issuer-records`)",
  },
  { key: "issuerPollSeconds", env: "ISSUER_POLL_SECONDS", flag: "issuer-poll-seconds", default: "3600", description: "Issuer feed poll interval" },
  // The real feed is about 0.6 MiB and 1,600 rows a poll (assets, history, upcoming): docs/sources.md#feed-caps.
  {
    key: "issuerFeedMaxMib",
    env: "ISSUER_FEED_MAX_MIB",
    flag: "issuer-feed-max-mib",
    default: "16",
    description: "MiB one issuer poll may read over every answer; a feed over it is degraded and nothing of that poll is stored",
  },
  {
    key: "issuerFeedMaxRecords",
    env: "ISSUER_FEED_MAX_RECORDS",
    flag: "issuer-feed-max-records",
    default: "20000",
    description: "Rows (assets and records) one issuer poll may hold; a feed over it is degraded and nothing of that poll is stored",
  },
  { key: "mintPollSeconds", env: "MINT_POLL_SECONDS", flag: "mint-poll-seconds", default: "300", description: "Mint state poll interval" },
  { key: "logLevel", env: "LOG_LEVEL", flag: "log-level", default: "info", description: "debug, info, warn or error" },
  {
    key: "logRequests",
    env: "LOG_REQUESTS",
    flag: "log-requests",
    default: "on",
    description: "on: one info log line per request (method, route template, status, duration, request id; never a key, path or query); off: only requests that failed with a 5xx",
  },
  { key: "maxWallets", env: "MAX_WALLETS_PER_TENANT", flag: "max-wallets", default: "100", description: "Wallets a tenant may register" },
  { key: "rpcConcurrency", env: "RPC_CONCURRENCY", flag: "rpc-concurrency", default: "4", description: "Solana RPC requests in flight at once" },
  { key: "rpcSpacingMs", env: "RPC_SPACING_MS", flag: "rpc-spacing-ms", default: "0", description: "Minimum milliseconds between two RPC request starts (a provider's rate limit)" },
  { key: "resyncSeconds", env: "RESYNC_SECONDS", flag: "resync-seconds", default: "3600", description: "Re-sync every followed wallet this often (±20% jitter); 0 turns following off" },
  { key: "syncConcurrency", env: "SYNC_CONCURRENCY", flag: "sync-concurrency", default: "4", description: "Sync jobs run at once (they share the RPC limits)" },
  {
    key: "jobDeadlineSeconds",
    env: "JOB_DEADLINE_SECONDS",
    flag: "job-deadline-seconds",
    default: "1800",
    description: "A sync job stops reading after this long; what it read is kept, the rest is a named gap",
  },
  {
    key: "maxSignaturePages",
    env: "MAX_SIGNATURE_PAGES",
    flag: "max-signature-pages",
    default: "10",
    description: "Signature pages (1000 each) one address's walk reads per sync; longer histories resume next sync",
  },
  {
    key: "taxTreatment",
    env: "TAX_TREATMENT",
    flag: "tax-treatment",
    default: "income",
    description: "income or deferred: whether a reinvested dividend is income when the multiplier rises or is realized at the sale; the default of reports and lots (treatment= per request)",
  },
  {
    key: "lotMethod",
    env: "LOT_METHOD",
    flag: "lot-method",
    default: "fifo",
    description: "fifo, lifo, hifo or average: which lot a sale takes first; the default of reports and lots (method= per request)",
  },
  {
    key: "stablecoins",
    env: "STABLECOINS",
    flag: "stablecoins",
    default: "USDC, USDT, PYUSD",
    description: "Comma-separated mint addresses of the USD stablecoins that price a purchase or a sale in the same transaction (valued 1:1); the default is USDC, USDT and PYUSD's mainnet mints",
  },
];

/** The value of XSTOCKS_API_URL that turns the issuer feed off. */
export const FEED_OFF = "off";
export const issuerFeedOff = (config: Pick<Config, "xstocksApiUrl">): boolean => config.xstocksApiUrl.trim().toLowerCase() === FEED_OFF;

/** The commands that read settings. */
export type CommandName =
  | "serve"
  | "sync"
  | "keys"
  | "wallets"
  | "webhooks"
  | "calendar-url"
  | "backup"
  | "restore"
  | "compact"
  | "verify"
  | "migrate"
  | "rates"
  | "import"
  | "migrate-to-postgres"
  | "mcp";

/**
 * The settings each command reads, so each gets exactly those as flags: `serve` reads every
 * setting; the others name theirs. A new setting is a `serve` flag at once, and a flag of another
 * command once it is listed here.
 */
const commandSettings: Record<Exclude<CommandName, "serve">, (keyof Config)[]> = {
  sync: [
    "dataDir",
    "databaseUrl",
    "solanaRpcUrl",
    "xstocksApiUrl",
    "issuerFeedMaxMib",
    "issuerFeedMaxRecords",
    "logLevel",
    "maxWallets",
    "rpcConcurrency",
    "rpcSpacingMs",
    "jobDeadlineSeconds",
    "maxSignaturePages",
    "resyncSeconds",
  ],
  keys: ["dataDir", "databaseUrl"],
  wallets: ["dataDir", "databaseUrl"],
  webhooks: ["dataDir", "databaseUrl"],
  "calendar-url": ["dataDir", "databaseUrl", "host", "port"],
  backup: ["dataDir", "databaseUrl"],
  restore: ["dataDir", "databaseUrl"],
  compact: ["dataDir", "databaseUrl"],
  verify: ["dataDir", "databaseUrl"],
  migrate: ["dataDir", "databaseUrl"],
  rates: ["dataDir", "databaseUrl"],
  import: ["dataDir", "databaseUrl"],
  "migrate-to-postgres": ["dataDir", "databaseUrl"],
  mcp: ["dataDir", "databaseUrl", "logLevel"],
};

export function settingsFor(command: CommandName): Setting[] {
  if (command === "serve") return settings;
  const keys = commandSettings[command];
  return settings.filter((s) => keys.includes(s.key));
}

export class ConfigError extends Error {}

/** A DNS name as a Host header carries it, without the port: dot-separated labels of letters, digits, hyphens and underscores. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

function parseValue(s: Setting, raw: string): Config[keyof Config] {
  switch (s.key) {
    case "host":
    case "dataDir":
    case "solanaRpcUrl":
    case "xstocksApiUrl":
      return raw;
    case "databaseUrl":
      // Unset (its default reads "none"): SQLite in the data dir.
      if (raw === "" || raw === s.default) return null;
      if (!/^postgres(ql)?:\/\/./.test(raw)) throw new ConfigError(`${s.env} must be a postgres:// or postgresql:// URL`);
      return raw;
    case "allowedHosts": {
      if (raw === s.default) return [];
      const names = raw
        .split(",")
        .map((n) => n.trim().toLowerCase().replace(/\.$/, ""))
        .filter(Boolean);
      const bad = names.find((n) => !HOST_NAME.test(n));
      if (bad !== undefined) throw new ConfigError(`${s.env} must list host names separated by commas (letters, digits, hyphens and dots, no port), got ${JSON.stringify(bad)}`);
      return names;
    }
    case "trustProxy":
    case "logRequests": {
      const v = raw.toLowerCase();
      if (["1", "true", "yes", "on"].includes(v)) return true;
      if (["0", "false", "no", "off", ""].includes(v)) return false;
      throw new ConfigError(`${s.env} must be ${s.key === "logRequests" ? "on or off" : "true or false"}, got ${JSON.stringify(raw)}`);
    }
    case "logLevel":
      if (!["debug", "info", "warn", "error"].includes(raw)) throw new ConfigError(`${s.env} must be debug, info, warn or error`);
      return raw as Config["logLevel"];
    case "taxTreatment":
      if (!(TAX_TREATMENTS as string[]).includes(raw)) throw new ConfigError(`${s.env} must be ${TAX_TREATMENTS.join(" or ")}, got ${JSON.stringify(raw)}`);
      return raw as TaxTreatment;
    case "lotMethod":
      if (!(LOT_METHODS as string[]).includes(raw)) throw new ConfigError(`${s.env} must be ${LOT_METHODS.slice(0, -1).join(", ")} or ${LOT_METHODS.at(-1)}, got ${JSON.stringify(raw)}`);
      return raw as LotMethod;
    case "stablecoins": {
      if (raw === s.default) return [...DEFAULT_STABLECOINS];
      const mints = raw
        .split(",")
        .map((m) => m.trim())
        .filter(Boolean);
      const bad = mints.find((m) => !isAddress(m));
      if (bad !== undefined || !mints.length) throw new ConfigError(`${s.env} must list mint addresses (base58) separated by commas, got ${JSON.stringify(bad ?? raw)}`);
      return [...new Set(mints)];
    }
    default: {
      if (!/^\d+$/.test(raw)) throw new ConfigError(`${s.env} must be a whole number, got ${JSON.stringify(raw)}`);
      const n = Number(raw);
      if (s.key === "port" && n > 65535) throw new ConfigError(`${s.env} must be at most 65535`);
      if (
        (s.key === "rateLimitPerMinute" ||
          s.key === "authFailuresPerMinute" ||
          s.key === "maxWallets" ||
          s.key === "rpcConcurrency" ||
          s.key === "syncConcurrency" ||
          s.key === "jobDeadlineSeconds" ||
          s.key === "maxSignaturePages" ||
          s.key === "issuerFeedMaxMib" ||
          s.key === "issuerFeedMaxRecords") &&
        n < 1
      )
        throw new ConfigError(`${s.env} must be at least 1`);
      return n;
    }
  }
}

/**
 * Resolves the configuration from flags (citty args, by flag name) over env over defaults. With
 * `demo`, the data dir is the flag's or the demo's own default, never CA_LEDGER_DATA_DIR.
 */
export function loadConfig(flags: Record<string, unknown> = {}, env: Record<string, string | undefined> = process.env, opts: { demo?: boolean } = {}): Config {
  const out: Record<string, unknown> = {};
  for (const s of settings) {
    const flag = flags[s.flag] ?? flags[camel(s.flag)];
    let raw: string | undefined = flag === undefined || flag === null ? undefined : String(flag);
    const fromEnv = !(opts.demo && s.key === "dataDir");
    if (raw === undefined && fromEnv && env[s.env] !== undefined && env[s.env] !== "") raw = env[s.env];
    if (raw === undefined) raw = s.key === "dataDir" ? defaultDataDir(env, opts.demo) : s.default;
    out[s.key] = parseValue(s, raw);
  }
  return out as unknown as Config;
}

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
