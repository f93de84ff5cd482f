// A real webhook receiver on loopback, as a subscriber would write it: it verifies each request
// with the Standard Webhooks reference library (npm standardwebhooks) under every secret it
// holds, answers 204 when one verifies and 401 with the library's reason when none does. Tests
// set how it behaves (answer, fail, never answer) and read what it saw.
import { Webhook } from "standardwebhooks";

export interface ReceivedRequest {
  headers: Record<string, string>;
  body: string;
  /** Per secret held: "ok" or the library's reason for refusing. */
  verdicts: string[];
  /** The status answered; null while the request is held open. */
  answered: number | null;
}

export type Behaviour = "verify" | { status: number; retryAfter?: string } | "hang";

export interface Receiver {
  url: string;
  received: ReceivedRequest[];
  secrets: string[];
  behaviour: Behaviour;
  /** Sends a request again exactly as it was received (a replay by someone who captured it). */
  replay(r: ReceivedRequest): Promise<{ status: number; text: string }>;
  stop(): void;
}

export function startReceiver(secrets: string[], path = "/hooks/ca-ledger"): Receiver {
  const receiver: Receiver = {
    url: "",
    received: [],
    secrets,
    behaviour: "verify",
    replay: async (r) => {
      const kept = Object.fromEntries(Object.entries(r.headers).filter(([k]) => k.startsWith("webhook-") || k === "content-type"));
      const res = await fetch(receiver.url, { method: "POST", headers: kept, body: r.body });
      return { status: res.status, text: await res.text() };
    },
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = await req.text();
      const headers = Object.fromEntries(req.headers);
      const verdicts = receiver.secrets.map((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return "ok";
        } catch (e) {
          return (e as Error).message;
        }
      });
      const entry: ReceivedRequest = { headers, body, verdicts, answered: null };
      receiver.received.push(entry);
      const b = receiver.behaviour;
      if (b === "hang") return new Promise<Response>(() => {});
      const answer = (status: number, text: string | null, extra: Record<string, string> = {}) => {
        entry.answered = status;
        return new Response(text, { status, headers: extra });
      };
      if (b !== "verify") return answer(b.status, "not now", b.retryAfter ? { "retry-after": b.retryAfter } : {});
      return verdicts.includes("ok") ? answer(204, null) : answer(401, verdicts.join("; "));
    },
  });
  receiver.url = `http://127.0.0.1:${server.port}${path}`;
  return receiver;
}
