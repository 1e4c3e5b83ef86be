import type { IncomingMessage } from 'node:http';
import { createParser } from 'eventsource-parser';
import type { EventStream, PlatformEvent, SandboxAnswer } from './connection.js';
import { parseEvent } from '../sandbox/event-json.js';
import { jsonOf, startRequest, type ClientInit } from './http.js';

/**
 * The sandbox's event stream over HTTP (GET /_sandbox/events, docs/sandbox.md, "Events"): Server-Sent
 * Events, read as the spec says by eventsource-parser (`data:` with or without its space, several
 * `data:` lines joined, `id:`, `retry:`, comments, CR LF and CR line ends), and opened again with
 * `Last-Event-ID` when the connection is cut, so that no event is lost or seen twice.
 */

/** The event stream was answered with another status than 200. */
export class StreamRefused extends Error {
  constructor(readonly answer: SandboxAnswer) {
    super(`the sandbox answered ${answer.status} to the event stream`);
  }
}

/** How a stream that was cut is opened again: `retry:` from the sandbox replaces `delayMs`. */
export interface ReconnectPolicy {
  /** The wait before the first attempt after a cut; doubled after each failed attempt, up to maxDelayMs. */
  delayMs: number;
  maxDelayMs: number;
  /** Failed attempts in a row after which the stream has ended. */
  attempts: number;
}

export const reconnectDefaults: ReconnectPolicy = { delayMs: 250, maxDelayMs: 2_000, attempts: 5 };

/**
 * The comment the sandbox opens each stream with (src/sandbox/stream.ts): where the stream starts,
 * so that a stream cut before its first event resumes there too.
 */
const OPENING_COMMENT = /^ ?core sandbox events after seq (\d{1,15})$/;

/**
 * Opens GET /_sandbox/events with `query` and hands each event, read from its JSON form
 * (src/sandbox/event-json.ts), to `onEvent`; a message that is not an event this version knows (a
 * type a later sandbox added) is passed over. A status other than 200 rejects `opened` with
 * `StreamRefused`, so the caller can report it. The time limit covers the answer to each request.
 *
 * When the connection is cut (the sandbox closes a stream that does not keep up, a proxy drops it,
 * the sandbox restarts on its port), it is opened again after `retry:` (else `policy.delayMs`), with
 * `Last-Event-ID` set to the last event's id (the seq; before any event, the seq the sandbox said the
 * stream started after), so the sandbox replays exactly the events after it. Only after
 * `policy.attempts` failed attempts in a row, or an answer other than 200 to one (the conversation
 * is gone), has the stream ended.
 */
export function openEventStream(
  init: ClientInit,
  query: string,
  onEvent: (event: PlatformEvent) => void,
  policy: ReconnectPolicy = reconnectDefaults,
): EventStream {
  let lastEventId: string | undefined;
  let retryMs: number | undefined;
  let failures = 0;
  let closed = false;
  let first = true;
  let retryTimer: NodeJS.Timeout | undefined;
  let current: { destroy(): void } | undefined;
  let endStream!: () => void;
  const ended = new Promise<void>((resolve) => {
    endStream = () => {
      closed = true;
      clearTimeout(retryTimer);
      resolve();
    };
  });
  let openedFirst!: () => void;
  let refusedFirst!: (error: unknown) => void;
  const opened = new Promise<void>((resolve, reject) => {
    openedFirst = resolve;
    refusedFirst = reject;
  });
  // A rejection nobody awaits yet must not end the process; the caller awaits `opened`.
  opened.catch(() => {});

  // What has come since the last whole event: past MAX_SANDBOX_EVENT_BYTES the stream is given up.
  let pending = 0;
  const parser = createParser({
    onEvent: (message) => {
      pending = 0;
      if (message.id !== undefined) lastEventId = message.id;
      const event = eventOf(message.data);
      if (event !== undefined) onEvent(event);
    },
    onRetry: (ms) => (retryMs = ms),
    onComment: (comment) => {
      const start = OPENING_COMMENT.exec(comment);
      if (start && lastEventId === undefined) lastEventId = start[1];
    },
  });

  /** The connection is gone: the stream goes on through a new one, unless it was closed. */
  const cut = () => {
    if (closed) return;
    if (init.signal.aborted) return endStream();
    failures += 1;
    if (failures > policy.attempts) return endStream();
    const base = retryMs ?? policy.delayMs;
    retryTimer = setTimeout(connect, Math.min(base * 2 ** (failures - 1), Math.max(policy.maxDelayMs, base)));
  };

  function connect(): void {
    if (closed) return;
    const headers: Record<string, string> = { Accept: 'text/event-stream', 'Cache-Control': 'no-cache' };
    if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
    // What a cut connection left half-read is not an event: the next one starts clean.
    parser.reset({ consume: false });
    const fail = (error: Error) => {
      if (!first) return cut();
      endStream();
      refusedFirst(error);
    };
    const { req, answered } = startRequest(init, 'GET', `/_sandbox/events${query}`, headers, fail);
    current = req;
    req.on('response', (res: IncomingMessage) => {
      answered();
      if (res.statusCode !== 200) return refuse(res, first ? fail : () => endStream());
      if (first) {
        first = false;
        openedFirst();
      }
      failures = 0;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending += chunk.length;
        if (pending > MAX_SANDBOX_EVENT_BYTES) {
          // An event without end where a sandbox's stream was expected: not read further, not asked again.
          endStream();
          res.destroy();
          return;
        }
        parser.feed(chunk);
      });
      let gone = false;
      const done = () => {
        if (gone) return;
        gone = true;
        cut();
      };
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    req.end();
  }

  connect();
  return {
    opened,
    ended,
    close: () => {
      endStream();
      current?.destroy();
    },
  };
}

/** The most one event of the stream may be (docs/sandbox.md, "Bounds"): a bot answer of the sandbox's 1 MB, its every character escaped. */
export const MAX_SANDBOX_EVENT_BYTES = 16 * 1024 * 1024;
/** The most kept of the body of a refused stream, for its message. */
const MAX_REFUSAL_BYTES = 64 * 1024;

/** An answer other than 200, read up to MAX_REFUSAL_BYTES and handed on as `StreamRefused`. */
function refuse(res: IncomingMessage, fail: (error: Error) => void): void {
  let text = '';
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    fail(new StreamRefused({ status: res.statusCode ?? 0, text, json: jsonOf(text) }));
  };
  res.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    if (text.length > MAX_REFUSAL_BYTES) {
      text = text.slice(0, MAX_REFUSAL_BYTES);
      res.destroy();
      finish();
    }
  });
  res.on('end', finish);
  res.on('close', finish);
}

/** An event from its JSON form; undefined for one this version does not know. */
function eventOf(text: string): PlatformEvent | undefined {
  try {
    return parseEvent(text);
  } catch {
    return undefined;
  }
}
