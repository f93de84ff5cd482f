// Waiting for a state, never for a duration: polls `check` until it holds, and fails naming `what`
// after a generous overall deadline (the machine may be busy with other work).
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await Bun.sleep(10);
  }
}
