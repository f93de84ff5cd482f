// A recorded chain: answers the Solana JSON-RPC methods the service uses, in the real wire
// format, from stored state (account bytes, signature lists, transactions). The embedded demo
// replays through it, and the loopback test server wraps it with fault injection; the adapters
// cannot tell it from a provider.
import { getTokenDecoder, getTokenEncoder } from "@solana-program/token-2022";
import { TOKEN_OWNER_METADATA_SLOT } from "./rpc.ts";
import { TOKEN_2022_PROGRAM_ID, type WireSignatureInfo, type WireTransaction } from "./wire.ts";

export interface ChainAccount {
  data: Uint8Array;
  owner: string;
  lamports?: number;
}

export interface ChainState {
  slot: number;
  accounts: Map<string, ChainAccount>;
  /** Per address, newest first (as getSignaturesForAddress returns them). */
  signatures: Map<string, WireSignatureInfo[]>;
  transactions: Map<string, WireTransaction>;
  blockTimes?: Map<number, number>;
  /** Token account addresses per owner, when the chain keeps that index (else every account is scanned). */
  tokenAccountsByOwner?: Map<string, string[]>;
  /** Answer getTransactionsForAddress as Helius and Triton do (a standard node answers "Method not found"). */
  servesTransactionsForAddress?: boolean;
}

export interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string };
}

/** Optional distortion of getTokenAccountsByOwner (a provider misreporting a balance). */
export interface Misreport {
  tokenAccount: string;
  delta: bigint;
}

const toBase64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

export function answerRpc(state: ChainState, method: string, params: any[], misreport: Misreport | null = null): RpcAnswer {
  const account = (a: ChainAccount, dataOverride?: Uint8Array) => ({
    data: [toBase64(dataOverride ?? a.data), "base64"],
    executable: false,
    lamports: a.lamports ?? 2_039_280,
    owner: a.owner,
    rentEpoch: 18446744073709552000,
    space: (dataOverride ?? a.data).length,
  });
  const ctx = () => ({ apiVersion: "2.2.0", slot: state.slot });
  const invalidParams = (message: string) => ({ error: { code: -32602, message } });
  switch (method) {
    case "getSlot":
      return { result: state.slot };
    case "getBlockTime": {
      const t = state.blockTimes?.get(params[0]);
      return t === undefined ? { error: { code: -32009, message: `Slot ${params[0]} was skipped, or missing in long-term storage` } } : { result: t };
    }
    case "getAccountInfo": {
      if (params[1]?.encoding !== "base64") return invalidParams("only base64 is recorded");
      const a = state.accounts.get(params[0]);
      return { result: { context: ctx(), value: a ? account(a) : null } };
    }
    case "getMultipleAccounts": {
      if (params[1]?.encoding !== "base64") return invalidParams("only base64 is recorded");
      if (!Array.isArray(params[0]) || params[0].length > 100) return invalidParams("Too many inputs provided; max 100");
      return { result: { context: ctx(), value: params[0].map((k: string) => (state.accounts.has(k) ? account(state.accounts.get(k)!) : null)) } };
    }
    case "getTokenAccountsByOwner": {
      const [owner, filter, config] = params;
      if (config?.encoding !== "base64") return invalidParams("only base64 is recorded");
      if (filter?.programId !== TOKEN_2022_PROGRAM_ID) return { result: { context: ctx(), value: [] } };
      const value = [];
      // A node indexes token accounts by owner; a large loopback chain (the scale bench) can too.
      const candidates = state.tokenAccountsByOwner ? (state.tokenAccountsByOwner.get(owner) ?? []).map((k) => [k, state.accounts.get(k)!] as const) : state.accounts;
      for (const [pubkey, a] of candidates) {
        // Token accounts are 165 bytes, or longer with the account-type byte 2 at offset 165.
        if (a.owner !== TOKEN_2022_PROGRAM_ID || a.data.length < 165 || (a.data.length > 165 && a.data[165] !== 2)) continue;
        const token = getTokenDecoder().decode(a.data);
        if (token.owner !== owner) continue;
        const data = misreport && misreport.tokenAccount === pubkey ? (getTokenEncoder().encode({ ...token, amount: token.amount + misreport.delta }) as Uint8Array) : undefined;
        value.push({ pubkey, account: account(a, data) });
      }
      return { result: { context: ctx(), value } };
    }
    case "getSignaturesForAddress": {
      const [address, config = {}] = params;
      const limit = config.limit ?? 1000;
      if (limit < 1 || limit > 1000) return invalidParams("Invalid limit; max 1000");
      let list = state.signatures.get(address) ?? [];
      if (config.before) {
        const i = list.findIndex((s) => s.signature === config.before);
        list = i < 0 ? [] : list.slice(i + 1);
      }
      if (config.until) {
        const i = list.findIndex((s) => s.signature === config.until);
        if (i >= 0) list = list.slice(0, i);
      }
      return { result: list.slice(0, limit) };
    }
    case "getTransaction": {
      const [signature, config = {}] = params;
      if (config.encoding !== "json") return invalidParams("only json is recorded");
      const tx = state.transactions.get(signature);
      if (!tx) return { result: null };
      if (tx.version === 0 && config.maxSupportedTransactionVersion === undefined) {
        return { error: { code: -32015, message: "Transaction version (0) is not supported by the requesting client." } };
      }
      return { result: tx };
    }
    case "getTransactionsForAddress":
      if (!state.servesTransactionsForAddress) return { error: { code: -32601, message: "Method not found" } };
      return answerTransactionsForAddress(state, params);
    default:
      return { error: { code: -32601, message: "Method not found" } };
  }
}

const FULL_TRANSACTIONS_PAGE_MAX = 100;

/**
 * getTransactionsForAddress as Helius documents it, for `transactionDetails: "full"`,
 * `encoding: "json"`: the address's transactions and, with `filters.tokenAccounts`, those of the
 * token accounts it owns (from the balances' owners, so closed accounts too, and none before
 * TOKEN_OWNER_METADATA_SLOT), newest or oldest first, `filters.status` and `filters.slot`, paged
 * with an opaque `paginationToken` (here "slot:transactionIndex" of the page's last entry).
 */
function answerTransactionsForAddress(state: ChainState, params: any[]): RpcAnswer {
  const [address, config = {}] = params;
  const invalid = (message: string) => ({ error: { code: -32602, message } });
  if (typeof address !== "string") return invalid("Invalid param: address");
  if (config.transactionDetails !== "full" || config.encoding !== "json") return invalid("only full transactions in json are recorded");
  const limit = config.limit ?? FULL_TRANSACTIONS_PAGE_MAX;
  if (!Number.isInteger(limit) || limit < 1 || limit > FULL_TRANSACTIONS_PAGE_MAX) return invalid(`Invalid limit; max ${FULL_TRANSACTIONS_PAGE_MAX} with full transaction details`);
  const filters = config.filters ?? {};
  const tokenAccounts: string = filters.tokenAccounts ?? "none";
  const slot = filters.slot ?? {};
  const indexInSlot = new Map<number, number>();
  const entries: { tx: WireTransaction; index: number }[] = [];
  for (const tx of state.transactions.values()) {
    const index = indexInSlot.get(tx.slot) ?? 0;
    indexInSlot.set(tx.slot, index + 1);
    if (filters.status === "succeeded" && tx.meta?.err != null) continue;
    if (filters.status === "failed" && tx.meta?.err == null) continue;
    if (
      (slot.gte !== undefined && tx.slot < slot.gte) ||
      (slot.gt !== undefined && tx.slot <= slot.gt) ||
      (slot.lte !== undefined && tx.slot > slot.lte) ||
      (slot.lt !== undefined && tx.slot >= slot.lt)
    )
      continue;
    if (references(tx, address) || (tokenAccounts !== "none" && tx.slot >= TOKEN_OWNER_METADATA_SLOT && touchesOwnedAccount(tx, address, tokenAccounts === "balanceChanged"))) {
      entries.push({ tx, index });
    }
  }
  const asc = config.sortOrder === "asc";
  entries.sort((a, b) => (a.tx.slot - b.tx.slot || a.index - b.index) * (asc ? 1 : -1));
  let start = 0;
  if (config.paginationToken) {
    const m = /^(\d+):(\d+)$/.exec(String(config.paginationToken));
    if (!m) return invalid("Invalid paginationToken");
    const [tokenSlot, tokenIndex] = [Number(m[1]), Number(m[2])];
    start = entries.findIndex((e) => (asc ? e.tx.slot > tokenSlot || (e.tx.slot === tokenSlot && e.index > tokenIndex) : e.tx.slot < tokenSlot || (e.tx.slot === tokenSlot && e.index < tokenIndex)));
    if (start < 0) start = entries.length;
  }
  const page = entries.slice(start, start + limit);
  const last = page.at(-1);
  const more = start + limit < entries.length;
  return {
    result: {
      data: page.map((e) => ({ ...e.tx, transactionIndex: e.index })),
      paginationToken: more && last ? `${last.tx.slot}:${last.index}` : null,
    },
  };
}

function references(tx: WireTransaction, address: string): boolean {
  const loaded = tx.meta?.loadedAddresses;
  return tx.transaction.message.accountKeys.includes(address) || !!loaded?.writable.includes(address) || !!loaded?.readonly.includes(address);
}

/** Whether a token account `owner` owns appears in the balances (with a changed balance, when asked). */
function touchesOwnedAccount(tx: WireTransaction, owner: string, balanceChanged: boolean): boolean {
  const pre = new Map((tx.meta?.preTokenBalances ?? []).map((b) => [b.accountIndex, b]));
  const post = new Map((tx.meta?.postTokenBalances ?? []).map((b) => [b.accountIndex, b]));
  for (const index of new Set([...pre.keys(), ...post.keys()])) {
    const before = pre.get(index);
    const after = post.get(index);
    if (before?.owner !== owner && after?.owner !== owner) continue;
    if (!balanceChanged || (before?.uiTokenAmount.amount ?? "0") !== (after?.uiTokenAmount.amount ?? "0")) return true;
  }
  return false;
}

/** The stored form of a ChainState (JSON: base64 bytes, plain objects). */
export interface ChainRecording {
  slot: number;
  accounts: Record<string, { data: string; owner: string }>;
  signatures: Record<string, WireSignatureInfo[]>;
  transactions: Record<string, WireTransaction>;
}

export function chainFromRecording(r: ChainRecording): ChainState {
  return {
    slot: r.slot,
    accounts: new Map(Object.entries(r.accounts).map(([k, a]) => [k, { data: new Uint8Array(Buffer.from(a.data, "base64")), owner: a.owner }])),
    signatures: new Map(Object.entries(r.signatures)),
    transactions: new Map(Object.entries(r.transactions)),
    blockTimes: new Map(),
  };
}

export function recordingFromChain(s: ChainState): ChainRecording {
  return {
    slot: s.slot,
    accounts: Object.fromEntries([...s.accounts].map(([k, a]) => [k, { data: toBase64(a.data), owner: a.owner }])),
    signatures: Object.fromEntries(s.signatures),
    transactions: Object.fromEntries(s.transactions),
  };
}

/** A fetch that answers JSON-RPC POSTs from a recorded chain, as a provider would over HTTP. */
export function recordedRpcFetch(state: ChainState) {
  return async (_input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let body: { id?: unknown; method?: string; params?: any[] };
    try {
      body = JSON.parse(String(init?.body ?? ""));
    } catch {
      return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    }
    return Response.json({ jsonrpc: "2.0", id: body.id ?? null, ...answerRpc(state, body.method ?? "", body.params ?? []) });
  };
}
