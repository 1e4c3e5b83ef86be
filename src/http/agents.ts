import http from 'node:http';
import https from 'node:https';
import type { RequestOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import { redactProxyUrl } from './proxy.js';

/**
 * The connection agents of a request, made in one place for every sending path (a single reply or
 * greeting, and the reason batch with its kept-alive pool): direct or through a proxy, with the
 * trust store and certificate checking that apply. Node's agents apply their own options over a
 * request's, so what is set here holds for every connection they open.
 */

export interface TransportOptions {
  /** The proxy to go through, or null for a direct connection. */
  proxy: URL | null;
  /** The whole trust store to use (default store plus a private CA), or null for Node's default. */
  ca: string[] | null;
  /** --insecure: certificates are not checked. Never set otherwise. */
  insecure: boolean;
  /** The time limit of one attempt, which also bounds the CONNECT to a proxy. */
  timeoutMs: number;
}

export interface PoolOptions {
  /** Keep connections open between requests (a batch). */
  keepAlive: boolean;
  /** The most connections at once to one host. */
  maxSockets?: number;
}

export interface Agents {
  http: http.Agent;
  https: https.Agent;
}

/** Requests waiting for a proxy's answer to CONNECT; the agent that opened them destroys them with itself. */
type PendingTunnels = Set<http.ClientRequest>;

/**
 * Opens a CONNECT tunnel to `target` through `proxy` and hands back its socket (as hpagent does, whose
 * agents these replace). Two things hpagent leaves open are closed here. The CONNECT is bounded by
 * the request's time limit, so a proxy that accepts the connection and never answers cannot hold it
 * forever; and it is destroyed with the agent, so an attempt given up (time limit, Ctrl-C) leaves no
 * socket that keeps the process alive. A refused tunnel becomes an error with the code EPROXY and a
 * message naming the proxy (without its credentials) and its status.
 */
function openTunnel(
  proxy: URL,
  proxyTls: https.RequestOptions,
  target: { host: string; port: number },
  settings: { keepAlive: boolean; timeoutMs: number; pending: PendingTunnels },
  callback: (error: Error | null, socket?: Duplex) => void,
): void {
  const hostPort = `${target.host}:${target.port}`;
  const headers: Record<string, string> = { host: hostPort, connection: settings.keepAlive ? 'keep-alive' : 'close' };
  if (proxy.username !== '' || proxy.password !== '') {
    const user = decodeURIComponent(proxy.username);
    const password = decodeURIComponent(proxy.password);
    headers['proxy-authorization'] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }
  const secure = proxy.protocol === 'https:';
  const request = (secure ? https : http).request({
    ...(secure ? { ...proxyTls, servername: proxy.hostname } : {}),
    method: 'CONNECT',
    host: proxy.hostname.replace(/^\[|\]$/g, ''),
    port: proxy.port === '' ? (secure ? 443 : 80) : Number(proxy.port),
    path: hostPort,
    setHost: false,
    headers,
    agent: false,
    timeout: settings.timeoutMs,
  });
  settings.pending.add(request);
  let done = false;
  const finish = (error: Error | null, socket?: Duplex) => {
    if (done) return;
    done = true;
    settings.pending.delete(request);
    callback(error, socket);
  };
  request.once('connect', (response: http.IncomingMessage, socket: Duplex) => {
    request.removeAllListeners();
    socket.removeAllListeners();
    if (response.statusCode === 200) return finish(null, socket);
    socket.destroy();
    const code = response.statusCode ?? 0;
    const why = code === 407 ? ': proxy authentication required; check the user name and password in the proxy URL' : '';
    finish(
      Object.assign(new Error(`the proxy ${redactProxyUrl(proxy)} answered ${code} to CONNECT ${hostPort}${why}`), { code: 'EPROXY' }),
    );
  });
  request.once('timeout', () => {
    request.destroy(
      Object.assign(new Error(`the proxy ${redactProxyUrl(proxy)} did not answer CONNECT ${hostPort}`), { code: 'ETIMEDOUT' }),
    );
  });
  request.on('error', (error) => finish(error));
  request.end();
}

/** https through a proxy: a CONNECT tunnel, then TLS with the service inside it. */
class TunnelAgent extends https.Agent {
  private readonly pending: PendingTunnels = new Set();
  private readonly tunnelKeepAlive: boolean;

  constructor(
    private readonly proxy: URL,
    private readonly proxyTls: https.RequestOptions,
    private readonly timeoutMs: number,
    options: https.AgentOptions,
  ) {
    super(options);
    this.tunnelKeepAlive = options.keepAlive === true;
  }

  // Node's Agent calls createConnection with a callback when one is given; @types/node lacks it.
  override createConnection(options: RequestOptions, callback?: (error: Error | null, socket: Duplex) => void): Duplex | null | undefined {
    const target = { host: String(options.host), port: Number(options.port) };
    openTunnel(
      this.proxy,
      this.proxyTls,
      target,
      { keepAlive: this.tunnelKeepAlive, timeoutMs: this.timeoutMs, pending: this.pending },
      (error, socket) => {
        if (error || !socket) return callback?.(error, socket as Duplex);
        callback?.(null, super.createConnection({ ...options, socket } as RequestOptions) as Duplex);
      },
    );
    return undefined;
  }

  override destroy(): void {
    for (const request of this.pending) request.destroy();
    this.pending.clear();
    super.destroy();
  }
}

/** Plain http through an https proxy: inside a CONNECT tunnel, as the proxy's TLS leaves no other way. */
class TunneledHttpAgent extends http.Agent {
  private readonly pending: PendingTunnels = new Set();
  private readonly tunnelKeepAlive: boolean;

  constructor(
    private readonly proxy: URL,
    private readonly proxyTls: https.RequestOptions,
    private readonly timeoutMs: number,
    options: http.AgentOptions,
  ) {
    super(options);
    this.tunnelKeepAlive = options.keepAlive === true;
  }

  override createConnection(options: RequestOptions, callback?: (error: Error | null, socket: Duplex) => void): Duplex | null | undefined {
    const target = { host: String(options.host), port: Number(options.port) };
    openTunnel(
      this.proxy,
      this.proxyTls,
      target,
      { keepAlive: this.tunnelKeepAlive, timeoutMs: this.timeoutMs, pending: this.pending },
      (error, socket) => callback?.(error, socket as Duplex),
    );
    return undefined;
  }

  override destroy(): void {
    for (const request of this.pending) request.destroy();
    this.pending.clear();
    super.destroy();
  }
}

/**
 * Plain http through a proxy, the way proxies expect it: the request goes to the proxy with the
 * absolute URL as its target (`POST http://host/path HTTP/1.1`), not through a CONNECT tunnel,
 * which many proxies allow to port 443 only.
 */
class AbsoluteUriAgent extends http.Agent {
  private readonly proxy: URL;
  private readonly authorization: string | undefined;

  constructor(proxy: URL, options: http.AgentOptions) {
    super(options);
    this.proxy = proxy;
    if (proxy.username !== '' || proxy.password !== '') {
      const user = decodeURIComponent(proxy.username);
      const password = decodeURIComponent(proxy.password);
      this.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    }
  }

  // Not in @types/node's Agent, but the method every request goes through (Node's lib/_http_agent.js).
  addRequest(request: http.ClientRequest, options: http.RequestOptions & Record<string, unknown>): void {
    const host = String(options.host ?? options.hostname ?? 'localhost');
    // The default port is left out, as in the URL the user wrote.
    const given = options.port === undefined || options.port === null ? '' : String(options.port);
    const port = given === '' || given === '80' ? '' : `:${given}`;
    const hostPart = host.includes(':') ? `[${host}]` : host;
    request.path = `http://${hostPart}${port}${request.path}`;
    if (this.authorization) request.setHeader('Proxy-Authorization', this.authorization);
    const proxyPort = this.proxy.port === '' ? (this.proxy.protocol === 'https:' ? 443 : 80) : Number(this.proxy.port);
    // Node's Agent.addRequest has a further positional form; the options object is the one used here.
    (http.Agent.prototype as unknown as { addRequest: (r: unknown, o: unknown) => void }).addRequest.call(this, request, {
      ...options,
      host: this.proxy.hostname.replace(/^\[|\]$/g, ''),
      hostname: this.proxy.hostname.replace(/^\[|\]$/g, ''),
      port: proxyPort,
      servername: undefined,
    });
  }
}

/**
 * The http and https agents for one invocation. A proxy applies to both schemes (the caller chose
 * it for the base URL's scheme); the trust store and --insecure apply to https.
 */
export function createAgents(options: TransportOptions, pool: PoolOptions = { keepAlive: false }): Agents {
  const base = { keepAlive: pool.keepAlive, ...(pool.maxSockets !== undefined ? { maxSockets: pool.maxSockets } : {}) };
  // rejectUnauthorized is always set, so that NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment
  // cannot turn the checks off: only --insecure does.
  const tlsOptions = { ...(options.ca ? { ca: options.ca } : {}), rejectUnauthorized: !options.insecure };
  if (options.proxy === null) {
    return { http: new http.Agent(base), https: new https.Agent({ ...base, ...tlsOptions }) };
  }
  // An https proxy is checked against the same trust store as the service.
  const proxyTls = options.proxy.protocol === 'https:' ? tlsOptions : {};
  return {
    // Absolute-URI requests need a plain connection to the proxy; through an https proxy, plain http
    // goes in a CONNECT tunnel instead.
    http:
      options.proxy.protocol === 'https:'
        ? new TunneledHttpAgent(options.proxy, proxyTls, options.timeoutMs, base)
        : new AbsoluteUriAgent(options.proxy, base),
    https: new TunnelAgent(options.proxy, proxyTls, options.timeoutMs, { ...base, ...tlsOptions }),
  };
}

export function destroyAgents(agents: Agents): void {
  agents.http.destroy();
  agents.https.destroy();
}
