// Run after `tsc -b` (root `prepare` and `build`): bundles the pure-ESM dependencies that the service loads at
// start-up as hundreds of small modules (typebox ~374 files, kysely ~264) into a few files under
// dist/vendor/, and points the compiled service's imports of them there. Loading ~640 modules one by one cost
// `verdict serve` about half a second and every database CLI call about a quarter; the bundles load in a tenth of
// that. Only the compiled output changes: the sources, the type checker and the tests (which run the sources) still
// import the packages from node_modules. Idempotent: a second run rewrites nothing already pointing at dist/vendor.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** Packages bundled, each as one entry point; code they share goes into common chunks. ESM only. */
export const VENDORED = ['typebox', 'kysely'];

const pkgDir = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(pkgDir, 'dist');
const vendorDir = join(dist, 'vendor');

// the bundles are rebuilt only when a vendored package (or esbuild) changed version: a running service keeps its files
const require = createRequire(join(pkgDir, 'package.json'));
const versions = [
  'options 2 (whitespace and syntax minified)',
  ...['esbuild', ...VENDORED].map((name) => `${name}@${packageVersion(name)}`),
].join('\n');
const stamp = join(vendorDir, 'versions.txt');
const current = existsSync(stamp) && readFileSync(stamp, 'utf8') === versions;
if (!current) await bundle();

/** A package's version, read from its package.json where Node would find the package (exports may hide the file). */
function packageVersion(name) {
  for (const dir of require.resolve.paths(name) ?? []) {
    const file = join(dir, name, 'package.json');
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')).version;
  }
  throw new Error(`bundle-vendor: ${name} is not installed`);
}

async function bundle() {
  rmSync(vendorDir, { recursive: true, force: true });
  await build({
    entryPoints: Object.fromEntries(VENDORED.map((name) => [name, name])),
    absWorkingDir: pkgDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    mainFields: ['module', 'main'],
    // smaller to parse (~10 % quicker to load); identifiers keep their names, so stack traces stay readable
    minifyWhitespace: true,
    minifySyntax: true,
    outdir: vendorDir,
    chunkNames: 'chunk-[hash]',
    logLevel: 'warning',
  });
  writeFileSync(stamp, versions);
}

const specifier = new RegExp(`(\\bfrom\\s*|\\bimport\\s*\\(\\s*)(['"])(${VENDORED.join('|')})\\2`, 'g');
let rewritten = 0;
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
  const file = join(entry.parentPath, entry.name);
  if (file.startsWith(vendorDir + sep)) continue;
  const source = readFileSync(file, 'utf8');
  const next = source.replace(specifier, (_m, lead, quote, name) => {
    let target = relative(entry.parentPath, join(vendorDir, `${name}.js`))
      .split(sep)
      .join('/');
    if (!target.startsWith('.')) target = `./${target}`;
    return `${lead}${quote}${target}${quote}`;
  });
  if (next !== source) {
    writeFileSync(file, next);
    rewritten++;
  }
}
console.log(
  `vendor: ${VENDORED.join(', ')} ${current ? 'already bundled' : 'bundled'} in dist/vendor; ${rewritten} compiled files now import them there`,
);
