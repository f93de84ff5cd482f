// `ca-ledger serve`: the HTTP server and the sync worker in one process. Runs until SIGINT or
// SIGTERM, then stops accepting, lets in-flight requests finish and closes the database.
import { defineCommand } from "citty";
import { fail, settingArgs } from "./common.ts";

export const serveCommand = defineCommand({
  meta: { name: "serve", description: "Start the HTTP API and the sync worker (every flag also reads its env variable)" },
  args: { ...settingArgs("serve"), demo: { type: "boolean", description: "Serve the embedded synthetic demo (offline) from its own data dir and print a fresh key" } },
  async run({ args }) {
    const { startServer } = await import("../src/server.ts");
    let handle;
    try {
      handle = await startServer(args as Record<string, unknown>, { demo: Boolean(args.demo) });
    } catch (e) {
      fail((e as Error).message, 1);
    }
    await new Promise<void>((resolve) => {
      const stop = async () => {
        await handle!.stop();
        resolve();
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    // Everything that matters is closed; a retry timer of an abandoned step must not keep the
    // process alive.
    process.exit(0);
  },
});
