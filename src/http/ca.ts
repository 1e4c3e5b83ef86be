import { X509Certificate } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import tls from 'node:tls';
import { ConfigError } from '../errors.js';

/**
 * The trust store of a request that adds a private CA (`--ca-file`, a profile's `caFile`).
 *
 * Node's `ca` option replaces the trust store rather than adding to it, so the list handed to the
 * agent is the default store plus the file's certificates. On Node 20 the default store that
 * `tls.rootCertificates` lists is the bundled one only: the certificates Node added at start-up from
 * NODE_EXTRA_CA_CERTS are not in it and would be dropped, so that file is read here too. Newer
 * Node releases list the store as Node uses it (`tls.getCACertificates('default')`, which holds
 * NODE_EXTRA_CA_CERTS already).
 */

/** Far larger than any CA bundle (the Mozilla bundle is about 220 KB); a bigger file is not one. */
const MAX_CA_FILE_BYTES = 10 * 1024 * 1024;

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * The PEM certificates of a CA file. Throws a ConfigError (exit 2) naming the file and `label` (how
 * it was given: `--ca-file`, `caFile of profile "staging"`) when it is missing, unreadable, or holds
 * no certificate that can be read.
 */
export async function readCaFile(file: string, label: string): Promise<string[]> {
  const hint = 'give a PEM file holding the CA certificate (-----BEGIN CERTIFICATE-----)';
  let size: number;
  try {
    const info = await stat(file);
    if (info.isDirectory()) throw new ConfigError(`${label}: ${file} is a folder, not a certificate file`, { hint });
    size = info.size;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${label}: ${file} ${describeFsError(error)}`, { hint });
  }
  if (size > MAX_CA_FILE_BYTES) throw new ConfigError(`${label}: ${file} is too large to be a certificate file`, { hint });
  let text: string;
  try {
    text = await readFile(file, 'latin1');
  } catch (error) {
    throw new ConfigError(`${label}: ${file} ${describeFsError(error)}`, { hint });
  }
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) {
    // A DER file starts with an ASN.1 SEQUENCE byte; say how to convert it.
    const der = text.charCodeAt(0) === 0x30;
    throw new ConfigError(`${label}: ${file} holds no PEM certificate`, {
      hint: der ? `it looks like DER; convert it: openssl x509 -inform der -in ${file} -out ca.pem` : hint,
    });
  }
  blocks.forEach((block, index) => {
    try {
      new X509Certificate(block);
    } catch {
      throw new ConfigError(`${label}: certificate ${index + 1} of ${blocks.length} in ${file} cannot be read`, { hint });
    }
  });
  return blocks;
}

function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)';
  return `cannot be read (${code ?? 'error'})`;
}

type GetCaCertificates = (type?: 'default' | 'bundled' | 'system' | 'extra') => string[];

/**
 * The trust store Node uses when no `ca` option is given, as a list: the bundled roots and the
 * certificates of NODE_EXTRA_CA_CERTS. `warn` hears of an extra-certificates file that cannot be
 * read (Node itself only warns about it too).
 */
export async function defaultTrustStore(env: Record<string, string | undefined>, warn: (message: string) => void): Promise<string[]> {
  const getCaCertificates = (tls as unknown as { getCACertificates?: GetCaCertificates }).getCACertificates;
  if (typeof getCaCertificates === 'function') return [...getCaCertificates('default')];
  const roots = [...tls.rootCertificates];
  const extraFile = env.NODE_EXTRA_CA_CERTS;
  if (extraFile === undefined || extraFile === '') return roots;
  try {
    const text = await readFile(extraFile, 'latin1');
    return [...roots, ...(text.match(PEM_BLOCK) ?? [])];
  } catch (error) {
    warn(`NODE_EXTRA_CA_CERTS: ${extraFile} ${describeFsError(error)}; its certificates are not trusted`);
    return roots;
  }
}
