import { startRecordingServer, type RecordedRequest, type RecordingServer } from './recording-server.js';

/**
 * A service that allows `perSecond` requests a second, on the recording server: a token bucket
 * holding at most `burst` tokens, refilled continuously; a request that finds it empty is answered
 * 429 with Retry-After saying when the next token comes. Retry-After is given in seconds with
 * decimals (core reads them), so a test at a high rate waits milliseconds, not whole seconds;
 * bench/batch.mjs sends whole seconds, as most services do.
 *
 * The bucket starts full and begins to refill only once it has run dry: the first `burst` requests
 * take its tokens whatever their pace, so the (burst + 1)th is refused with a 429 however slowly
 * the client sends. A bucket refilled from the start let a client on a busy machine, sending fewer
 * than `perSecond` requests a second, never meet the limit the tests are about.
 *
 * With `retryAfter: false` the 429 says nothing of when to come back, as a service may do (docs/api.md
 * does not show its rate limits).
 */
export interface RateLimitedServer extends RecordingServer {
  /** How many times each body was answered 200, by the `code` of its JSON (every reason once, or not). */
  applied: Map<string, number>;
  /** How many requests were answered 429. */
  limited(): number;
}

export interface RateLimitOptions {
  /** Whether a 429 carries Retry-After (true unless given). */
  retryAfter?: boolean;
}

export async function startRateLimitedServer(
  perSecond: number,
  burst = perSecond,
  { retryAfter = true }: RateLimitOptions = {},
): Promise<RateLimitedServer> {
  let tokens = burst;
  let last = performance.now();
  let refilling = false;
  let limited = 0;
  const applied = new Map<string, number>();
  const server = await startRecordingServer((request: RecordedRequest) => {
    if (refilling) tokens = Math.min(burst, tokens + ((request.at - last) / 1000) * perSecond);
    last = request.at;
    if (tokens < 1) {
      refilling = true;
      limited += 1;
      const seconds = (1 - tokens) / perSecond;
      return {
        status: 429,
        headers: { ...(retryAfter ? { 'Retry-After': seconds.toFixed(3) } : {}), 'Content-Type': 'application/json' },
        body: '{"message":"slow down"}',
      };
    }
    tokens -= 1;
    const code = codeOf(request.text);
    applied.set(code, (applied.get(code) ?? 0) + 1);
    return { status: 200 };
  });
  return Object.assign(server, { applied, limited: () => limited });
}

function codeOf(text: string): string {
  try {
    const { code } = JSON.parse(text) as { code?: unknown };
    return typeof code === 'string' ? code : text;
  } catch {
    return text;
  }
}
