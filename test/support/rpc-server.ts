// A loopback Solana JSON-RPC server speaking the real wire format from an in-memory chain, with
// fault injection (429 bursts with retry-after, 5xx, hangs, truncated or non-JSON bodies,
// JSON-RPC errors, a balance misreported by one raw unit). Port 0: the OS picks a free port.
import { getTokenDecoder, getTokenEncoder } from "@solana-program/token-2022";
import { getBase64Encoder } from "@solana/kit";
import { TOKEN_2022_PROGRAM_ID, type WireSignatureInfo, type WireTransaction } from "../../src/sources/solana/wire";
import { toBase64 } from "./chain";

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
}

export function emptyChain(slot = 450_000_000): ChainState {
  return { slot, accounts: new Map(), signatures: new Map(), transactions: new Map(), blockTimes: new Map() };
}

/** Record a transaction on the chain, listed (newest first) under each of `addresses`. */
export function addTransaction(state: ChainState, signature: string, tx: WireTransaction, addresses: string[]): void {
  state.transactions.set(signature, tx);
  const info: WireSignatureInfo = { signature, slot: tx.slot, err: tx.meta?.err ?? null, memo: null, blockTime: tx.blockTime, confirmationStatus: "finalized" };
  for (const address of addresses) {
    const list = state.signatures.get(address) ?? [];
    list.unshift(info);
    state.signatures.set(address, list);
  }
}

export type Fault =
  | { kind: "status"; status: number; retryAfter?: string; body?: string }
  | { kind: "hang"; ms?: number }
  | { kind: "stall_body" }
  | { kind: "truncate" }
  | { kind: "not_json" }
  | { kind: "rpc_error"; code: number; message: string }
  | { kind: "null_result" };

export interface FaultRule {
  fault: Fault;
  /** How many matching requests it hits (Infinity for all). */
  times: number;
  method?: string;
  match?: (params: any[]) => boolean;
}

export interface Misreport {
  /** getTokenAccountsByOwner reports this token account's raw amount plus `delta`. */
  tokenAccount: string;
  delta: bigint;
}

export interface RpcServer {
  url: string;
  stop(): void;
  readonly requests: number;
  /** Every request received, in order (method and params). */
  log: { method: string; params: any[] }[];
  state: ChainState;
  inject(rule: FaultRule): void;
  clearFaults(): void;
  misreport(m: Misreport | null): void;
}

const encoder = getBase64Encoder();

export function startRpcServer(state: ChainState): RpcServer {
  const rules: FaultRule[] = [];
  const log: { method: string; params: any[] }[] = [];
  let misreport: Misreport | null = null;

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

  function answer(method: string, params: any[]): { result?: unknown; error?: { code: number; message: string } } {
    switch (method) {
      case "getSlot":
        return { result: state.slot };
      case "getBlockTime": {
        const t = state.blockTimes?.get(params[0]);
        return t === undefined ? { error: { code: -32009, message: `Slot ${params[0]} was skipped, or missing in long-term storage` } } : { result: t };
      }
      case "getAccountInfo": {
        if (params[1]?.encoding !== "base64") return invalidParams("this test server only speaks base64");
        const a = state.accounts.get(params[0]);
        return { result: { context: ctx(), value: a ? account(a) : null } };
      }
      case "getMultipleAccounts": {
        if (params[1]?.encoding !== "base64") return invalidParams("this test server only speaks base64");
        if (!Array.isArray(params[0]) || params[0].length > 100) return invalidParams("Too many inputs provided; max 100");
        return { result: { context: ctx(), value: params[0].map((k: string) => (state.accounts.has(k) ? account(state.accounts.get(k)!) : null)) } };
      }
      case "getTokenAccountsByOwner": {
        const [owner, filter, config] = params;
        if (config?.encoding !== "base64") return invalidParams("this test server only speaks base64");
        if (filter?.programId !== TOKEN_2022_PROGRAM_ID) return { result: { context: ctx(), value: [] } };
        const value = [];
        for (const [pubkey, a] of state.accounts) {
          if (a.owner !== TOKEN_2022_PROGRAM_ID || a.data.length < 165 || (a.data.length > 165 && a.data[165] !== 2)) continue;
          const token = getTokenDecoder().decode(a.data);
          if (token.owner !== owner) continue;
          let data: Uint8Array | undefined;
          if (misreport && misreport.tokenAccount === pubkey) {
            data = getTokenEncoder().encode({ ...token, amount: token.amount + misreport.delta }) as Uint8Array;
          }
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
        if (config.encoding !== "json") return invalidParams("this test server only speaks json");
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

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      let body: any;
      try {
        body = await req.json();
      } catch {
        return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      }
      const { id, method, params = [] } = body;
      log.push({ method, params });
      const rule = rules.find((r) => r.times > 0 && (!r.method || r.method === method) && (!r.match || r.match(params)));
      if (rule) {
        rule.times--;
        const f = rule.fault;
        switch (f.kind) {
          case "status":
            return new Response(f.body ?? (f.status === 429 ? "Too many requests" : "upstream error"), {
              status: f.status,
              headers: f.retryAfter ? { "retry-after": f.retryAfter } : {},
            });
          case "hang":
            await Bun.sleep(f.ms ?? 3_000);
            break;
          case "stall_body": {
            // Headers and half a body, then nothing: a deadline must cover the body too.
            const text = JSON.stringify({ jsonrpc: "2.0", id, ...answer(method, params) });
            const stream = new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode(text.slice(0, Math.floor(text.length / 2))));
              },
            });
            return new Response(stream, { headers: { "content-type": "application/json" } });
          }
          case "truncate": {
            const text = JSON.stringify({ jsonrpc: "2.0", id, ...answer(method, params) });
            return new Response(text.slice(0, Math.floor(text.length * 0.6)), { headers: { "content-type": "application/json" } });
          }
          case "not_json":
            return new Response("<html><body>502 Bad Gateway</body></html>", { headers: { "content-type": "text/html" } });
          case "rpc_error":
            return Response.json({ jsonrpc: "2.0", id, error: { code: f.code, message: f.message } });
          case "null_result":
            return Response.json({ jsonrpc: "2.0", id, result: null });
        }
      }
      return Response.json({ jsonrpc: "2.0", id, ...answer(method, params) });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/`,
    stop: () => server.stop(true),
    get requests() {
      return log.length;
    },
    log,
    state,
    inject: (rule) => rules.push(rule),
    clearFaults: () => {
      rules.length = 0;
    },
    misreport: (m) => {
      misreport = m;
    },
  };
}

/** Decode helper for tests that inspect what the server holds. */
export function base64ToBytes(b64: string): Uint8Array {
  return encoder.encode(b64) as Uint8Array;
}
