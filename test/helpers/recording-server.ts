import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it arrived on the wire: method, path, headers and the raw body bytes. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What the server does with one request. */
export type ScriptedAnswer =
  | { status: number; headers?: Record<string, string>; body?: string | Buffer; delayMs?: number }
  /** Drop the connection without answering. */
  | { reset: true; delayMs?: number };

export type Script = ScriptedAnswer[] | ((request: RecordedRequest, index: number) => ScriptedAnswer);

export interface RecordingServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const OK: ScriptedAnswer = { status: 200 };

/**
 * A loopback HTTP server that records every request and answers from a script (the last entry
 * repeats). Every answer carries an X-Request-Id unless the script sets one.
 */
export async function startRecordingServer(script: Script = [OK]): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const answerFor = (request: RecordedRequest, index: number): ScriptedAnswer => {
    if (typeof script === 'function') return script(request, index);
    return script[Math.min(index, script.length - 1)] ?? OK;
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      const index = requests.length;
      requests.push(recorded);
      const answer = answerFor(recorded, index);
      const respond = () => {
        if ('reset' in answer) {
          req.socket.destroy();
          return;
        }
        res.statusCode = answer.status;
        res.setHeader('X-Request-Id', randomUUID());
        for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(respond, answer.delayMs);
      else respond();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
