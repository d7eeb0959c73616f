#!/usr/bin/env node
// The CLI runs compiled JavaScript; `npm ci` builds it (the root `prepare` script: `tsc -b tsconfig.build.json`).
await import('../dist/bin/verdict.js');
