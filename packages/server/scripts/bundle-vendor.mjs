// Run after `tsc -b` (root `prepare` and `build`): bundles pure-JavaScript dependencies that the service loads at
// start-up as hundreds of small modules (typebox ~374 files, kysely ~264, prom-client with @opentelemetry/api ~85,
// rate-limiter-flexible ~32) into a few files under dist/vendor/, and points the compiled
// service's imports of them there. Loading them module by module cost `verdict serve` most of a second and every
// database CLI call about a quarter; the bundles load in a fraction of that. Only the compiled output changes: the sources, the type checker and the tests (which run the sources) still
// import the packages from node_modules. Idempotent: a second run rewrites nothing already pointing at dist/vendor.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** ES-module packages bundled, each as one entry point; code they share goes into common chunks. */
const ESM = ['typebox', 'kysely'];
/**
 * CommonJS packages bundled behind an ES-module entry that exports the package as its default and each of its
 * properties by name, as Node's own CommonJS interop does. Not bundled: packages that read files beside their own
 * code (@fastify/swagger-ui, @fastify/static), start workers from their files (pino), are native, or that Fastify's
 * own dependencies load anyway (yaml through @fastify/swagger, ipaddr.js through proxy-addr: a bundle would be a
 * second copy).
 */
const CJS = ['prom-client', 'rate-limiter-flexible'];
const VENDORED = [...ESM, ...CJS];

const pkgDir = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(pkgDir, 'dist');
const vendorDir = join(dist, 'vendor');

// the bundles are rebuilt only when a vendored package (or esbuild) changed version: a running service keeps its files
const require = createRequire(join(pkgDir, 'package.json'));
const versions = [
  'options 5 (whitespace and syntax minified, CommonJS behind ES-module entries, require banner)',
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

/** The entry name of a vendored package's bundle, dist/vendor/<stem>.js: its name with characters other than [\w-] as `_`. */
function bundleStem(name) {
  return name.replace(/[^\w-]/g, '_');
}

/** The ES-module entry of a CommonJS package: its exports object as default, and each property by name. */
function cjsEntry(name) {
  const names = Object.keys(require(name)).filter((k) => k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k));
  const named = names.length ? `export const { ${names.join(', ')} } = m;\n` : '';
  return `import m from ${JSON.stringify(name)};\nexport default m;\n${named}`;
}

async function bundle() {
  rmSync(vendorDir, { recursive: true, force: true });
  await build({
    entryPoints: Object.fromEntries([
      ...ESM.map((name) => [bundleStem(name), name]),
      ...CJS.map((name) => [bundleStem(name), `vendor-cjs:${name}`]),
    ]),
    plugins: [
      {
        name: 'vendor-cjs',
        setup(b) {
          b.onResolve({ filter: /^vendor-cjs:/ }, (a) => ({
            path: a.path.slice('vendor-cjs:'.length),
            namespace: 'vendor-cjs',
          }));
          b.onLoad({ filter: /.*/, namespace: 'vendor-cjs' }, (a) => ({
            contents: cjsEntry(a.path),
            resolveDir: pkgDir,
          }));
        },
      },
    ],
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
    // CommonJS code requires Node's built-ins (`require('process')`): give the ES-module bundles a real `require`
    banner: {
      js: "import { createRequire as __vendorRequire } from 'node:module'; const require = __vendorRequire(import.meta.url);",
    },
    outdir: vendorDir,
    chunkNames: 'chunk-[hash]',
    logLevel: 'warning',
  });
  writeFileSync(stamp, versions);
}

const escaped = VENDORED.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
const specifier = new RegExp(`(\\bfrom\\s*|\\bimport\\s*\\(\\s*)(['"])(${escaped.join('|')})\\2`, 'g');
let rewritten = 0;
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
  const file = join(entry.parentPath, entry.name);
  if (file.startsWith(vendorDir + sep)) continue;
  const source = readFileSync(file, 'utf8');
  const next = source.replace(specifier, (_m, lead, quote, name) => {
    let target = relative(entry.parentPath, join(vendorDir, `${bundleStem(name)}.js`))
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
