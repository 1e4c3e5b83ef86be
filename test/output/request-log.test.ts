import { afterEach, describe, expect, it } from 'vitest';
import { requestLog, type RequestLog } from '../../src/output/request-log.js';
import { happens } from '../helpers/wait.js';

/** A request log over a recording stand-in for the context's stderr writers. */
function recorded(redact?: (text: string) => string) {
  const writes: string[] = [];
  let written: () => void = () => {};
  const ctx = {
    err: (text: string) => {
      writes.push(String(text));
      written();
    },
    warn: (message: string) => {
      writes.push(`warning: ${message}\n`);
      written();
    },
  };
  const log = requestLog(ctx, redact);
  opened.push(log);
  return { writes, log, nextWrite: () => new Promise<void>((resolve) => (written = resolve)) };
}

const opened: RequestLog[] = [];
afterEach(() => {
  for (const log of opened.splice(0)) log.close();
});

describe('the request log of core sandbox and core bridge (src/output/request-log.ts)', () => {
  it('holds the lines of several requests and writes them together, each on its own line', async () => {
    const { writes, log, nextWrite } = recorded();
    const write = nextWrite();
    log.line('POST /webhook tenant=acme 200 r-1 delivered');
    log.line('POST /api/v1/chatbot tenant=acme 200 r-2 sent on');
    expect(writes).toEqual([]);
    await happens(write, 'the held lines written');
    expect(writes).toEqual(['POST /webhook tenant=acme 200 r-1 delivered\nPOST /api/v1/chatbot tenant=acme 200 r-2 sent on\n']);
  });

  it('writes the lines held before a warning first, so the order is kept', () => {
    const { writes, log } = recorded();
    log.line('GET / tenant=- 200 r-1 page index.html');
    log.warn('state file: the last line was cut short');
    log.line('GET /app.js tenant=- 200 r-2 page app.js');
    expect(writes).toEqual(['GET / tenant=- 200 r-1 page index.html\n', 'warning: state file: the last line was cut short\n']);
  });

  it('writes what is held when it is closed, and every later line at once', () => {
    const { writes, log } = recorded();
    log.line('POST /webhook tenant=acme 200 r-1 delivered');
    log.close();
    expect(writes).toEqual(['POST /webhook tenant=acme 200 r-1 delivered\n']);
    log.line('late line');
    expect(writes).toEqual(['POST /webhook tenant=acme 200 r-1 delivered\n', 'late line\n']);
  });

  it('masks each line with the function it is given, and makes it safe for a terminal', () => {
    const { writes, log } = recorded((text) => text.replaceAll('real-token-1234', '********'));
    log.line('sent on with real-token-1234 \u001b[31mred\u001b[39m');
    log.close();
    expect(writes).toHaveLength(1);
    expect(writes[0]).not.toContain('real-token-1234');
    expect(writes[0]).not.toContain('\u001b');
    expect(writes[0]).toMatch(/^sent on with \*{8} .*red.*\n$/);
  });
});
