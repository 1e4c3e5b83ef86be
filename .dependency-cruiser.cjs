// The import rules of the code, checked by `npm run lint` (and so by `npm test`):
// no cycles, counting type-only imports, and the layers of docs/architecture.md.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules must not import each other, directly or through others (type-only imports count).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'payload-is-pure',
      severity: 'error',
      comment: 'The payload schemas are shared by the CLI, the sandbox and the composer: they import nothing of those.',
      from: { path: '^src/payload/' },
      to: { path: '^src/(?!payload/|text/|errors\\.ts$)' },
    },
    {
      name: 'text-helpers-are-leaves',
      severity: 'error',
      comment:
        'The one "did you mean", duration formatter and "file not found" message (src/text/) are used by every layer: they import nothing of src/.',
      from: { path: '^src/text/' },
      to: { path: '^src/' },
    },
    {
      name: 'leaf-modules-import-nothing',
      severity: 'error',
      comment:
        "The proxy settings, the sandbox limits and the walk of a path's symbolic links are read by the config code, the test-file schema and the files core writes: they import nothing of src/ (the limits only the customer text bound of the MESSAGE webhook's contract, itself a leaf).",
      from: { path: '^src/(proxy-settings|sandbox/limits|links|payload/customer-text)\.ts$' },
      to: { path: '^src/', pathNot: '^src/payload/customer-text\.ts$' },
    },
    {
      name: 'config-imports-no-http',
      severity: 'error',
      comment:
        'The config code reads and checks settings; the network layer uses them. Proxy settings are read from src/proxy-settings.ts.',
      from: { path: '^src/config/' },
      to: { path: '^src/(http|send)/' },
    },
    {
      name: 'only-commands-import-send',
      severity: 'error',
      comment:
        'src/send/ is the one way a command sends a request to the API (the session, the request, the transport, one delivery): only the commands and send/ itself import it. Payload files, flag helpers and byte formats are in src/input/, for every layer.',
      from: { path: '^src/(?!commands/|send/)' },
      to: { path: '^src/send/' },
    },
    {
      name: 'payload-lists-build-no-schema',
      severity: 'error',
      comment:
        "The channels, the codes and the bot answer's model are read at start-up by command definitions and by every layer: they build no zod schema (only the problem messages' wording beside them).",
      from: { path: '^src/payload/(channels|codes|reply-fields)\\.ts$' },
      to: { dependencyTypesNot: ['type-only'], path: '^src/', pathNot: ['^src/payload/(channels|codes|messages)\\.ts$', '^src/text/'] },
    },
    {
      name: 'payload-lists-import-no-package',
      severity: 'error',
      comment: "The channels, the codes and the bot answer's model import no package (zod above all) and no Node module.",
      from: { path: '^src/payload/(channels|codes|reply-fields)\\.ts$' },
      to: {
        dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'testing-imports-no-sandbox-internals',
      severity: 'error',
      comment:
        "The test-file format and matching are pure: they may name the sandbox's limits (src/sandbox/limits.ts) and the types of its events, nothing that runs.",
      from: { path: '^src/testing/' },
      to: { path: '^src/sandbox/(?!limits\\.ts$)', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'testing-names-the-connection-only',
      severity: 'error',
      comment:
        'Bot testing is handed a connection to the sandbox (src/platform/connection.ts) by its command: it may name its types, and runs nothing of the transports.',
      from: { path: '^src/testing/' },
      to: { path: '^src/platform/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'operations-is-a-leaf',
      severity: 'error',
      comment: 'The operation descriptors are read by the sender, the sandbox and the OpenAPI generator: they import nothing.',
      from: { path: '^src/operations\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'only-program-imports-commands',
      severity: 'error',
      comment:
        "A command is reached through the program, never from the layers below it. What a command shares with the library or bot testing lives below the commands (the customer's wait and press: src/customer/).",
      from: { path: '^src/(?!commands/|program\\.ts$|main\\.ts$)' },
      to: { path: '^src/commands/' },
    },
    {
      name: 'testing-imports-no-command',
      severity: 'error',
      comment:
        'Bot testing (the file format, the runner, the reports) is used by its commands the way reply uses send/: the command hands it a sandbox client; it imports no command.',
      from: { path: '^src/testing/' },
      to: { path: '^src/commands/' },
    },
    {
      name: 'commands-import-no-other-command',
      comment:
        "A command's folder is its own: what two commands share lives in the files directly under src/commands/ (definition.ts, common.ts, send-options.ts) or below the commands (the sandbox client: src/platform/).",
      severity: 'error',
      from: { path: '^src/commands/([^/]+)/' },
      to: { path: '^src/commands/[^/]+/', pathNot: '^src/commands/$1/' },
    },
    {
      name: 'commands-do-not-import-the-program',
      severity: 'error',
      comment: 'Command definitions take their helpers from src/commands/definition.ts, not from the program that lists them.',
      from: { path: '^src/commands/' },
      to: { path: '^src/(program|main|bin)\\.ts$' },
    },
    {
      name: 'core-reply-builds-only-its-payload',
      severity: 'error',
      comment:
        "A sending command imports its own payload's module, not src/payload/index.ts or another's: a run builds only the zod schemas of the command that runs.",
      from: { path: '^src/commands/reply/' },
      to: { path: '^src/payload/(index|greeting|reason)\\.ts$' },
    },
    {
      name: 'core-greet-builds-only-its-payload',
      severity: 'error',
      comment:
        "A sending command imports its own payload's module, not src/payload/index.ts or another's: a run builds only the zod schemas of the command that runs.",
      from: { path: '^src/commands/greet/' },
      to: { path: '^src/payload/(index|reply|reason)\\.ts$' },
    },
    {
      name: 'core-reason-builds-only-its-payload',
      severity: 'error',
      comment:
        "A sending command imports its own payload's module, not src/payload/index.ts or another's: a run builds only the zod schemas of the command that runs.",
      from: { path: '^src/commands/reason/' },
      to: { path: '^src/payload/(index|reply|greeting)\\.ts$' },
    },
    {
      name: 'validation-imports-no-payload',
      severity: 'error',
      comment: 'The shared validation (src/payload/validate.ts) builds no schema of its own: each payload module brings its validator.',
      from: { path: '^src/payload/validate\\.ts$' },
      to: { path: '^src/payload/(index|reply|greeting|reason)\\.ts$' },
    },
    {
      name: 'sandbox-rules-do-no-io',
      severity: 'error',
      comment:
        "The sandbox's rules (src/sandbox/rules/) are pure functions of a tenant's read-only view and a request: no Node module (http, net, fs, child_process, crypto ...) and no package (got ...).",
      from: { path: '^src/sandbox/rules/' },
      to: { dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'sandbox-rules-read-no-store',
      severity: 'error',
      comment:
        "The sandbox's rules decide and the store applies: a rule imports only other rules, the shapes (model.ts), the events, the seed's reason helpers, the payload and errors; never the store, the log, the state or the server.",
      from: { path: '^src/sandbox/rules/' },
      to: {
        path: '^src/',
        pathNot: ['^src/sandbox/rules/', '^src/sandbox/(model|events|seed)\\.ts$', '^src/payload/', '^src/errors\\.ts$'],
      },
    },
    {
      name: 'only-the-store-changes-the-model',
      severity: 'error',
      comment:
        "The sandbox's model changes in one place, applyEvent (src/sandbox/store/apply.ts), on the store's own writable shapes (store/tenant.ts). Outside the store only store.ts is reached: it hands out the read-only shapes of src/sandbox/model.ts and changes the model only by recording events.",
      from: { path: '^src/', pathNot: '^src/sandbox/store/' },
      to: { path: '^src/sandbox/store/', pathNot: '^src/sandbox/store/store\\.ts$' },
    },
    {
      name: 'src-does-not-import-scripts-or-tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(scripts|test|bench)/' },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports are part of the graph: a cycle through types is still a cycle for a reader.
    tsPreCompilationDeps: true,
    // Packages are in the graph (not followed into), so that a rule can forbid one: with them excluded, a
    // rule on dependencyTypes 'npm' (sandbox-rules-do-no-io, payload-lists-import-no-package) never saw them.
    doNotFollow: { path: 'node_modules' },
  },
};
