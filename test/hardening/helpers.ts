import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What the hardening tests need besides the recording server (test/helpers/recording-server.ts),
 * all on this machine: a CA and a server certificate made here with openssl, a forward proxy that
 * records what passes through it, and a raw TCP server for answers that are not HTTP. Nothing
 * intercepts the HTTP library: requests go on the wire.
 */

export interface Pki {
  dir: string;
  /** The CA that signed the server certificate (PEM file). */
  caFile: string;
  /** Another CA, which signed nothing used here. */
  otherCaFile: string;
  key: string;
  cert: string;
}

/** Host names the server certificate is valid for, besides localhost and 127.0.0.1. */
export const TEST_HOST = 'api.example.test';

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function makeCa(dir: string, name: string): void {
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
}

/**
 * A CA and a server certificate it signed, for localhost, 127.0.0.1, api.example.test and any
 * `extraIps`, made with openssl in a temporary folder (two EC keys: well under a second).
 */
export function makePki(extraIps: string[] = []): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'core-pki-'));
  makeCa(dir, 'core-test-ca');
  makeCa(dir, 'core-other-ca');
  openssl(
    [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=localhost',
    ],
    dir,
  );
  const names = ['DNS:localhost', `DNS:${TEST_HOST}`, 'IP:127.0.0.1', ...extraIps.map((ip) => `IP:${ip}`)];
  writeFileSync(
    join(dir, 'server.ext'),
    `subjectAltName=${names.join(',')}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`,
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'core-test-ca.pem',
      '-CAkey',
      'core-test-ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      'server.ext',
    ],
    dir,
  );
  return {
    dir,
    caFile: join(dir, 'core-test-ca.pem'),
    otherCaFile: join(dir, 'core-other-ca.pem'),
    key: readFileSync(join(dir, 'server.key'), 'utf8'),
    cert: readFileSync(join(dir, 'server.pem'), 'utf8'),
  };
}

async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

export interface ProxyLogEntry {
  /** CONNECT for a tunnel, else the method of an absolute-URI request. */
  method: string;
  /** host:port for CONNECT, the absolute URL otherwise. */
  target: string;
  headers: IncomingHttpHeaders;
}

export interface TestProxy {
  url: string;
  port: number;
  log: ProxyLogEntry[];
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** Where a target host:port really is: a loopback port, or a host and port. */
  route: (host: string, port: number) => number | { host: string; port: number };
  /** "user:password" the proxy requires (Proxy-Authorization: Basic), else none. */
  credentials?: string;
}

/**
 * A forward proxy: CONNECT tunnels (https) and absolute-URI requests (plain http), each recorded
 * with its headers, then passed on to the loopback port `route` gives. Host names need no DNS: the
 * proxy, not the client, decides where they lead, as a real proxy would resolve them.
 */
export async function startProxy(options: ProxyOptions): Promise<TestProxy> {
  const log: ProxyLogEntry[] = [];
  const sockets = new Set<Socket>();
  const authorized = (headers: IncomingHttpHeaders) =>
    options.credentials === undefined || headers['proxy-authorization'] === `Basic ${Buffer.from(options.credentials).toString('base64')}`;

  const where = (host: string, port: number) => {
    const to = options.route(host, port);
    return typeof to === 'number' ? { host: '127.0.0.1', port: to } : to;
  };

  const server = createHttpServer((req, res) => {
    log.push({ method: req.method ?? '', target: req.url ?? '', headers: req.headers });
    if (!authorized(req.headers)) {
      res.writeHead(407, { 'Proxy-Authenticate': 'Basic realm="test"' }).end();
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('not an absolute URI');
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const to = where(target.hostname, Number(target.port || 80));
    const upstream = httpRequest(
      { host: to.host, port: to.port, method: req.method, path: `${target.pathname}${target.search}`, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    log.push({ method: 'CONNECT', target: req.url ?? '', headers: req.headers });
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    if (!authorized(req.headers)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n');
      return;
    }
    const to = where(...splitHostPort(req.url ?? ''));
    const upstream = connect(to.port, to.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const port = await listen(server, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function splitHostPort(target: string): [string, number] {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(target);
  return match ? [match[1]!, Number(match[2])] : [target, 443];
}

export interface RawServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** A TCP server that answers every connection with `bytes` and closes it: a service that does not speak HTTP. */
export async function startRawServer(bytes: Buffer | string): Promise<RawServer> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.end(bytes);
  });
  const port = await listen(server, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** This machine's first IPv4 address that is not loopback, if it has one. */
export function outsideAddress(): string | undefined {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (entry.family === 'IPv4' && !entry.internal) return entry.address;
    }
  }
  return undefined;
}

/** Writes a config file (JSON) with one profile, "test" and returns its path; mode 0600 unless given. */
export function writeConfig(dir: string, profile: Record<string, unknown>, mode = 0o600): string {
  const file = join(dir, '.corerc.json');
  writeFileSync(file, JSON.stringify({ profiles: { test: profile } }, null, 2), { mode });
  return file;
}

export interface HangingProxy {
  url: string;
  port: number;
  /** The CONNECT lines received, such as `CONNECT api.example.test:443 HTTP/1.1`. */
  connects: string[];
  /** Resolves once `count` CONNECT requests have arrived. */
  connected(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A proxy that accepts every connection, reads the CONNECT request and never answers it: the
 * connection stays open until the client gives up. Nothing else on the path can make a request wait
 * so long without a word.
 */
export async function startHangingProxy(): Promise<HangingProxy> {
  const connects: string[] = [];
  const sockets = new Set<Socket>();
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      const before = head.includes('\r\n\r\n');
      head += chunk.toString('latin1');
      if (before || !head.includes('\r\n\r\n')) return;
      connects.push(head.split('\r\n')[0]!);
      for (const waiter of waiters.filter((w) => connects.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
  });
  const port = await listen(server, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connects,
    connected: (count) => (connects.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }))),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
