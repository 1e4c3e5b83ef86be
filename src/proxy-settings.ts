/**
 * The proxy settings as the environment and the config file give them: which variable names the
 * proxy, NO_PROXY, and whether a proxy URL is usable. A leaf (it imports nothing), read by the
 * config code and by the connection rules of src/http/proxy.ts.
 */

export type EnvLike = Record<string, string | undefined>;

function envValue(env: EnvLike, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The proxy variable for a scheme, as `{ name, value }`: the lowercase name first, as curl reads them. */
export function proxyFromEnv(protocol: string, env: EnvLike): { name: string; value: string } | undefined {
  const names =
    protocol === 'https:'
      ? ['https_proxy', 'HTTPS_PROXY']
      : // Under CGI, HTTP_PROXY is set from a request's "Proxy:" header ("httpoxy"): ignored there, as Go does.
        ['http_proxy', ...(env.REQUEST_METHOD === undefined ? ['HTTP_PROXY'] : [])];
  for (const name of names) {
    const value = envValue(env, name);
    if (value !== undefined) return { name, value };
  }
  return undefined;
}

/** The NO_PROXY variable, `no_proxy` first. */
export function noProxyFromEnv(env: EnvLike): { name: string; value: string } | undefined {
  for (const name of ['no_proxy', 'NO_PROXY']) {
    const value = envValue(env, name);
    if (value !== undefined) return { name, value };
  }
  return undefined;
}

/**
 * Reads a proxy URL. A value without a scheme (`proxy.corp:3128`) is taken as http, as curl does.
 * Returns the URL or why it is unusable; the reason never quotes the value, which may hold a password.
 */
export function parseProxyUrl(value: string): { url: URL } | { problem: string } {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'is not a URL such as http://proxy.example.com:3128' };
  }
  if (url.protocol === 'socks:' || url.protocol.startsWith('socks')) {
    return { problem: `is a ${url.protocol.slice(0, -1)} proxy; only http and https proxies are supported` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { problem: `must be an http or https URL, not ${url.protocol.slice(0, -1)}` };
  }
  if (url.hostname === '') return { problem: 'has no host name' };
  return { url };
}
