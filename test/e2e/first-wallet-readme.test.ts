// The README's "Follow your first real wallet" as a person pastes it: its shell block run line by
// line with bash from the repository (the compiled binary at dist/ca-ledger, curl), against a
// loopback Solana JSON-RPC server in place of the provider. Only what the reader fills in is
// replaced: the key it printed, a wallet, the provider's URL; and the port, so that the test
// never meets another server on 4600. Then the dashboard answers and the key signs in.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../harness/index.ts";
import { ensureBinary, removeTempDirs, tempDir } from "../ops/helpers.ts";
import { startRpcServer } from "../support/rpc-server.ts";
import { buildWalletScenario } from "../support/wallet-chain.ts";
import { baseEnv, freePort } from "./trust-helpers.ts";

const section = (() => {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const at = readme.indexOf("\n## Follow your first real wallet\n");
  expect(at).toBeGreaterThan(0);
  return readme.slice(at + 1, readme.indexOf("\n## ", at + 1));
})();
const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
const commands = block
  .split("\n")
  .map((l) => l.trim())
  .filter(Boolean);

const servers: ReturnType<typeof Bun.spawn>[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.kill("SIGTERM");
    await s.exited;
  }
  removeTempDirs();
});

function bash(line: string, env: Record<string, string>) {
  const r = Bun.spawnSync(["bash", "-c", line], { cwd: repoRoot, env, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

describe("README: Follow your first real wallet", () => {
  test("the section is short and its block names the real flags, scope and routes", () => {
    expect(section.split("\n").length).toBeLessThanOrEqual(30);
    expect(commands[0]).toBe("dist/ca-ledger keys create me --tenant me --scopes assets:read,ledger:read,wallets:sync");
    expect(commands.some((c) => c.includes("/v1/wallets/sync"))).toBe(true);
    expect(commands.some((c) => c.includes("/v1/wallets/$WALLET/status"))).toBe(true);
  });

  test("pasted line by line: the key, the live server, the registration, the sync watched to the end, the dashboard", async () => {
    ensureBinary();
    const s = buildWalletScenario({ transfers: 5, seed: 51 });
    const rpc = startRpcServer(s.chain);
    const port = await freePort();
    const env: Record<string, string> = { ...baseEnv(tempDir("cal-readme-home-")), PORT: String(port) };
    const local = (line: string) => line.replaceAll("127.0.0.1:4600", `127.0.0.1:${port}`);
    let key = "";
    let status: { status?: string } = {};
    try {
      for (const line of commands) {
        const assignment = /^(KEY|WALLET)=\S+(\s+#.*)?$/.exec(line);
        if (assignment) {
          env[assignment[1]!] = assignment[1] === "KEY" ? key : s.owner;
        } else if (line.startsWith("dist/ca-ledger keys create")) {
          const r = bash(line, env);
          expect({ code: r.code }).toEqual({ code: 0 });
          expect(r.stderr).toContain("creating a new one there"); // it says where the live ledger goes
          key = /\b(cal_[A-Za-z0-9_-]{43})\b/.exec(r.stdout)![1]!;
        } else if (/dist\/ca-ledger serve &$/.test(line)) {
          const withProvider = line.replace(/^SOLANA_RPC_URL=('[^']*'|\S+)/, `SOLANA_RPC_URL='${rpc.url}'`).replace(/ &$/, "");
          expect(withProvider).not.toBe(line);
          const server = Bun.spawn(["bash", "-c", withProvider], { cwd: repoRoot, env, stdout: "pipe", stderr: "pipe" });
          servers.push(server);
          for (let i = 0; i < 750; i++) {
            if (
              await fetch(`http://127.0.0.1:${port}/v1/health`).then(
                (r) => r.ok,
                () => false,
              )
            )
              break;
            expect(server.exitCode).toBeNull();
            await Bun.sleep(20);
          }
        } else if (line.includes("/v1/wallets/sync")) {
          const r = bash(local(line), env);
          expect(JSON.parse(r.stdout)).toEqual({ owner: s.owner, registration: "registered", status: "queued", job: "enqueued" });
        } else if (line.includes("/status")) {
          // "ask again until it is done"
          for (let i = 0; i < 300 && !["complete", "partial"].includes(status.status ?? ""); i++) {
            status = JSON.parse(bash(local(line), env).stdout);
            if (!["complete", "partial"].includes(status.status ?? "")) await Bun.sleep(50);
          }
        } else {
          throw new Error(`a README line this test does not know: ${line}`);
        }
      }
      expect(status).toMatchObject({ owner: s.owner, status: "complete", transactionsFetched: s.transfers.length });
      expect(rpc.log.some((l) => l.method === "getTokenAccountsByOwner")).toBe(true); // the provider named was the one used
      // The dashboard is there, and the key signs in to it.
      const page = await fetch(`http://127.0.0.1:${port}/`);
      expect([page.status, (await page.text()).includes("<html")]).toEqual([200, true]);
      const signIn = await fetch(`http://127.0.0.1:${port}/ui/session`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: `http://127.0.0.1:${port}` },
        body: JSON.stringify({ key }),
      });
      expect(await signIn.json()).toMatchObject({ signedIn: true, tenant: "me", scopes: ["assets:read", "ledger:read", "wallets:sync"] });
    } finally {
      rpc.stop();
    }
  }, 90_000);
});
