import { UsageError } from '../errors.js';

/** Turns a failure to listen into a UsageError that says what to change; anything else passes through. */
export function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return new UsageError(`port ${port} on ${host} is already in use`, {
        hint: 'choose another --port, or --port 0 for a free one',
        cause: error,
      });
    case 'EACCES':
      return new UsageError(`no permission to listen on port ${port} of ${host}`, {
        hint: 'ports below 1024 need privileges; choose --port 1024 or above',
        cause: error,
      });
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new UsageError(`cannot listen on ${host}: not an address of this machine`, {
        hint: 'leave out --host to bind 127.0.0.1',
        cause: error,
      });
    default:
      return error;
  }
}
