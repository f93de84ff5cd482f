// A recorded chain: answers the Solana JSON-RPC methods the service uses, in the real wire
// format, from stored state (account bytes, signature lists, transactions). The embedded demo
// replays through it, and the loopback test server wraps it with fault injection; the adapters
// cannot tell it from a provider.
import { getTokenDecoder, getTokenEncoder } from "@solana-program/token-2022";
import { TOKEN_2022_PROGRAM_ID, type WireSignatureInfo, type WireTransaction } from "./wire.ts";

export interface ChainAccount { data: Uint8Array; owner: string; lamports?: number }

export interface ChainState {
  slot: number;
  accounts: Map<string, ChainAccount>;
  /** Per address, newest first (as getSignaturesForAddress returns them). */
  signatures: Map<string, WireSignatureInfo[]>;
  transactions: Map<string, WireTransaction>;
  blockTimes?: Map<number, number>;
  /** Token account addresses per owner, when the chain keeps that index (else every account is scanned). */
  tokenAccountsByOwner?: Map<string, string[]>;
}

export interface RpcAnswer { result?: unknown; error?: { code: number; message: string } }

/** Optional distortion of getTokenAccountsByOwner (a provider misreporting a balance). */
export interface Misreport { tokenAccount: string; delta: bigint }

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
    default:
      return { error: { code: -32601, message: "Method not found" } };
  }
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
