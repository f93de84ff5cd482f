// deploy/ca-ledger.service, the systemd unit docs/install.md installs: systemd's own checker
// (`systemd-analyze verify`, Debian package systemd; .ci/run installs it where missing) finds
// nothing to say about it, with ExecStart pointing at the built binary; where the tool is missing
// the test says how to get it and still checks the unit itself. Always: the unit is hardened as
// docs/install.md says, runs `serve` from the env file and the state dir, and every setting the
// unit and deploy/ca-ledger.env.example name is one ca-ledger reads and accepts.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, settings } from "../../src/config.ts";
import { repoRoot, tempDir } from "../harness/index.ts";
import { run } from "../support/run.ts";
import { ensureBinary } from "./helpers.ts";

const unitText = readFileSync(join(repoRoot, "deploy", "ca-ledger.service"), "utf8");
const envExample = readFileSync(join(repoRoot, "deploy", "ca-ledger.env.example"), "utf8");
const dir = tempDir("ca-ledger-unit-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A unit file's sections, each key's values in order (keys may repeat, as Environment= does). */
function parseUnit(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let current: Record<string, string[]> | null = null;
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const section = /^\[([A-Za-z]+)\]$/.exec(line);
    if (section) {
      current = sections[section[1]!] = {};
      continue;
    }
    const kv = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/.exec(line);
    if (!kv || !current) throw new Error(`line ${i + 1} is neither a section, a comment nor Key=value: ${raw}`);
    (current[kv[1]!] ??= []).push(kv[2]!);
  }
  return sections;
}

/** KEY=value lines of an environment file (comments and blank lines skipped). */
const envFile = (text: string) =>
  Object.fromEntries(
    text
      .split("\n")
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );

describe("deploy/ca-ledger.service", () => {
  test("systemd-analyze verify has nothing to say about it", async () => {
    const tool = Bun.which("systemd-analyze");
    if (!tool) {
      console.log("systemd-unit: systemd-analyze is not on this machine (Debian: apt-get install systemd); the unit was checked by this test's own parser only");
      return;
    }
    // The unit as installed, but starting the binary this checkout built (verify checks it is executable).
    const unit = join(dir, "ca-ledger.service");
    writeFileSync(unit, unitText.replace("ExecStart=/usr/local/bin/ca-ledger ", `ExecStart=${ensureBinary()} `));
    const verified = await run([tool, "verify", "--man=no", unit], { cwd: dir });
    // systemd warns about unknown keys and bad values and still exits 0: its silence is the check.
    expect({ code: verified.code, said: (verified.stdout + verified.stderr).trim() }).toEqual({ code: 0, said: "" });
  }, 60_000);

  test("is hardened as docs/install.md says, and runs serve as its own user from its env file and state dir", () => {
    const unit = parseUnit(unitText);
    const service = unit.Service!;
    const one = (key: string) => service[key]?.join("\n");
    expect({
      ExecStart: one("ExecStart"),
      User: one("User"),
      EnvironmentFile: one("EnvironmentFile"),
      StateDirectory: one("StateDirectory"),
      StateDirectoryMode: one("StateDirectoryMode"),
      UMask: one("UMask"),
      NoNewPrivileges: one("NoNewPrivileges"),
      ProtectSystem: one("ProtectSystem"),
      ProtectHome: one("ProtectHome"),
      PrivateTmp: one("PrivateTmp"),
      PrivateDevices: one("PrivateDevices"),
      CapabilityBoundingSet: one("CapabilityBoundingSet"),
      KillSignal: one("KillSignal"),
      Environment: one("Environment"),
      WantedBy: unit.Install?.WantedBy?.join(),
    }).toEqual({
      ExecStart: "/usr/local/bin/ca-ledger serve",
      User: "ca-ledger",
      EnvironmentFile: "/etc/ca-ledger/ca-ledger.env",
      StateDirectory: "ca-ledger",
      StateDirectoryMode: "0700",
      UMask: "0077",
      NoNewPrivileges: "yes",
      ProtectSystem: "strict",
      ProtectHome: "yes",
      PrivateTmp: "yes",
      PrivateDevices: "yes",
      CapabilityBoundingSet: "",
      KillSignal: "SIGTERM",
      Environment: "CA_LEDGER_DATA_DIR=/var/lib/ca-ledger",
      WantedBy: "multi-user.target",
    });
    // The data dir it names is the state dir systemd creates (and, with ProtectSystem=strict, the only one it may write).
    expect(one("Environment")).toBe(`CA_LEDGER_DATA_DIR=/var/lib/${one("StateDirectory")}`);
  });

  test("every setting the unit and the example env file name is one ca-ledger reads, and their values load", () => {
    const known = new Set(settings.map((s) => s.env));
    const unitEnv = envFile(parseUnit(unitText).Service!.Environment!.join("\n"));
    const example = envFile(envExample);
    for (const name of [...Object.keys(unitEnv), ...Object.keys(example)]) expect({ name, known: known.has(name) }).toEqual({ name, known: true });
    expect(Object.keys(example)).toEqual(expect.arrayContaining(["SOLANA_RPC_URL", "HOST", "PORT"]));
    expect(envExample).toMatch(/^#DATABASE_URL=postgres:\/\//m); // offered, off by default (SQLite in the state dir)
    const config = loadConfig({}, { ...example, ...unitEnv });
    expect({ dataDir: config.dataDir, host: config.host, port: config.port, databaseUrl: config.databaseUrl }).toEqual({
      dataDir: "/var/lib/ca-ledger",
      host: "127.0.0.1",
      port: 4600,
      databaseUrl: null,
    });
  });
});
