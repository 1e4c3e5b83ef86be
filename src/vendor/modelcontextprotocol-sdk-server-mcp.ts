// Built into dist/vendor/ and loaded on demand: see tsup.config.ts.
export { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
