/**
 * Timing of the simulated engine: a first-token delay, then tokens at a steady rate. Unthrottled
 * (rate 0) it emits fixed-size chunks back to back, yielding to the event loop every few chunks so
 * other streams, aborts and socket writes still get their turn.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface SimSpeed {
  /** Delay before the first token, in ms. */
  ttftMs: number;
  /** Tokens per second; 0 = as fast as possible. */
  tokensPerSecond: number;
  /** Tokens per chunk when unthrottled (throttled chunks carry whatever came due). */
  chunkTokens: number;
}

const CHUNKS_PER_TURN = 32;

/** Yields the end index of each successive chunk of `total` tokens, paced by `speed`. */
export async function* paceTokens(total: number, speed: SimSpeed, signal: AbortSignal): AsyncGenerator<number, void, undefined> {
  if (speed.ttftMs > 0) await delay(speed.ttftMs, signal);
  if (total === 0) return;
  if (speed.tokensPerSecond <= 0) {
    const size = Math.max(1, speed.chunkTokens);
    let chunks = 0;
    for (let sent = 0; sent < total; ) {
      sent = Math.min(total, sent + size);
      yield sent;
      if (++chunks % CHUNKS_PER_TURN === 0 && sent < total) {
        await nextTurn();
        if (signal.aborted) throw signal.reason;
      }
    }
    return;
  }
  const msPerToken = 1000 / speed.tokensPerSecond;
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const elapsed = performance.now() - start;
    // The first token is due at once (after the TTFT); token n at n × msPerToken.
    const due = Math.min(total, 1 + Math.floor(elapsed / msPerToken));
    if (due > sent) {
      sent = due;
      yield sent;
    } else {
      await delay(sent * msPerToken - elapsed, signal);
    }
  }
}

export function delay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
