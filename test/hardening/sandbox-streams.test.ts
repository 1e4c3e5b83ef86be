import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxDefaults } from '../../src/sandbox/options.js';
import { streamLimits } from '../../src/sandbox/stream.js';
import { happens } from '../helpers/wait.js';
import { replyBody, sandbox, sendReply } from '../sandbox/helpers.js';

/**
 * Event streams that are never read (docs/sandbox.md, "Bounds"): 256 of them could each hold 8 MB of
 * unsent events, 2 GB in all. Now all streams together hold at most a total (64 MB by default): each
 * stream's share is the total over the streams open, and a stream past its share is closed (logged).
 */

const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

/** An event stream whose client never reads a byte (no 'data' listener: the socket does not flow). */
async function deafStream(port: number): Promise<void> {
  const socket = connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(`GET /_sandbox/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
}

describe('the bound of all event streams together', () => {
  it('the defaults: 64 MiB for all streams, 8 MiB for one, 256 streams', () => {
    expect([sandboxDefaults.maxStreamBufferedBytes, streamLimits.maxBufferedBytes, streamLimits.maxStreams]).toEqual([
      64 * 1024 * 1024,
      8 * 1024 * 1024,
      256,
    ]);
  });

  it('clients that never read are closed once they hold more than their share of the total', async () => {
    const total = 1024 * 1024;
    const streams = 4;
    const sb = await sandbox({ maxStreamBufferedBytes: total });
    for (let i = 0; i < streams; i++) await deafStream(sb.port);
    const closedLines = () => sb.logs.filter((line) => line.startsWith('event stream closed: '));
    await happens(
      (async () => {
        // Each answer is a frame of about 300 KB to every stream; bounded by work, not by a clock.
        for (let answers = 0; answers < 400 && closedLines().length < streams; answers++) {
          await sendReply(sb, replyBody({ text: 'x', formattedText: 'a'.repeat(300_000) }));
        }
      })(),
      'answers sent until every stream that never reads is closed',
      60_000,
    );
    const lines = closedLines();
    expect(lines).toHaveLength(streams);
    // A stream is closed at its share (a quarter of the total while all four are open) plus the frame
    // it was writing: never at the 8 MiB one stream alone may hold.
    for (const line of lines) {
      const [, unsent, share] = /^event stream closed: (\d+) bytes unsent, more than its share \((\d+) bytes/.exec(line) ?? [];
      expect(Number(share)).toBeLessThanOrEqual(total);
      expect(Number(unsent)).toBeLessThan(Number(share) + 400_000);
    }
    expect(lines[0]).toContain(`(${total / streams} bytes, ${streams} streams open, ${total} bytes for all)`);
  });
});
