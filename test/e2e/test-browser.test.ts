// The browser the dashboard tests use (test/support/chromium.ts): the system's when it has one,
// else the Chromium the npm package ships, which must run here with nothing from the system
// but the C library: this file drives it whether or not the system also has Chromium, so CI
// proves the path a machine without the Debian package takes.
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { tempDir } from "../harness/index.ts";
import { testBrowser } from "../support/chromium.ts";

const dir = tempDir("ca-ledger-browser-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the dashboard tests' browser", () => {
  test("without a system Chromium, the npm package's is unpacked and draws a page headless", async () => {
    const browser = testBrowser("", join(dir, "no-chromium-here"));
    expect(browser.source).toStartWith("@sparticuz/chromium@");
    const context = await chromium.launchPersistentContext(join(dir, "profile"), {
      executablePath: browser.executablePath,
      env: { ...process.env, ...browser.env },
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu"],
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.setContent(`<p id="t">ca-ledger</p><canvas id="c" width="20" height="20"></canvas>
        <script>const g = document.getElementById("c").getContext("2d"); g.fillStyle = "rgb(47, 111, 179)"; g.fillRect(0, 0, 20, 20);</script>`);
      expect(await page.textContent("#t")).toBe("ca-ledger");
      const pixel = await page.evaluate(() => [...document.querySelector<HTMLCanvasElement>("#c")!.getContext("2d")!.getImageData(5, 5, 1, 1).data]);
      expect(pixel).toEqual([47, 111, 179, 255]);
    } finally {
      await context.close();
    }
  }, 120_000);

  test("a system Chromium, where there is one, is the one used", () => {
    const system = join(dir, "chromium");
    writeFileSync(system, "");
    expect(testBrowser("", system)).toEqual({ executablePath: system, source: `${system} (the system's)`, env: {} });
    expect(testBrowser("npm", system).source).toStartWith("@sparticuz/chromium@"); // unless asked for the npm one
  });
});
