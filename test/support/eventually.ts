/**
 * Runs `check` (a block of assertions) until it passes, at most `timeoutMs`; rethrows its last
 * failure, so the test reports the values it last saw rather than a bare timeout.
 *
 * @example
 * await eventually(async () => assert.equal(await chain.ownerOf(tokenId), wallet), 30_000);
 */
export async function eventually<T>(
  check: () => Promise<T>,
  timeoutMs: number,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
