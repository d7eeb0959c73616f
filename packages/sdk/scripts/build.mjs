// `npm run build -w packages/sdk [-- --out-dir <dir>]`: compiles src/ to ESM + declarations and writes the
// package.json that is published (`npm publish packages/sdk/dist`). The workspace itself consumes src/ directly.
// The compile uses browser libs and no Node types, so any Node-only API in src/ fails the build.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const flag = process.argv.indexOf('--out-dir');
const outDir = path.resolve(root, flag >= 0 ? process.argv[flag + 1] : 'dist');

fs.rmSync(outDir, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--outDir', outDir], {
  stdio: 'inherit',
});

const source = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const published = {
  name: source.name,
  version: source.version,
  description: source.description,
  license: source.license,
  type: 'module',
  sideEffects: false,
  engines: source.engines,
  main: './index.js',
  types: './index.d.ts',
  exports: { '.': { types: './index.d.ts', import: './index.js', default: './index.js' } },
  dependencies: source.dependencies,
};
fs.writeFileSync(path.join(outDir, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
if (fs.existsSync(path.join(root, 'README.md'))) {
  fs.copyFileSync(path.join(root, 'README.md'), path.join(outDir, 'README.md'));
}
process.stdout.write(`Built ${path.relative(process.cwd(), outDir) || outDir}\n`);
