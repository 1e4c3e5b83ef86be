// Built into dist/vendor/ and loaded on demand: see tsup.config.ts.
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
