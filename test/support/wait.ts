/** Polling for what a test cannot await directly: a background job's result, a row another process writes. */

/** Reads until `read` gives something truthy, every `intervalMs`; throws once `timeoutMs` has passed. */
export async function eventually<T>(read: () => T | null | undefined | false | Promise<T | null | undefined | false>, timeoutMs = 15_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
