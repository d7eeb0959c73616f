// Builds the console into dist/: one bundled script and one stylesheet, content-hashed, and an index.html that loads
// them (no inline script or style: the service's Content-Security-Policy allows only its own files). Runs at
// `npm ci` (the package's prepare script), so `npm start` serves it with no further step.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist');

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  // npm ci runs prepare scripts after every dependency is installed; a missing esbuild means a partial install
  console.error('[console] esbuild is not installed; run npm ci at the repository root');
  process.exit(1);
}

const started = Date.now();
const result = await esbuild.build({
  entryPoints: { app: path.join(root, 'web/main.tsx') },
  bundle: true,
  minify: true,
  sourcemap: false,
  format: 'esm',
  target: ['chrome109', 'firefox115', 'safari15.4'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  loader: { '.svg': 'dataurl' },
  legalComments: 'none',
  write: false,
  outdir: path.join(out, 'assets'),
  entryNames: '[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
});

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(path.join(out, 'assets'), { recursive: true });
const names = {};
for (const file of result.outputFiles) {
  fs.writeFileSync(file.path, file.contents);
  names[path.extname(file.path)] = path.basename(file.path);
}
const icon = fs.readFileSync(path.join(root, 'web/icon.svg'));
const iconName = `icon-${createHash('sha256').update(icon).digest('hex').slice(0, 8)}.svg`;
fs.writeFileSync(path.join(out, 'assets', iconName), icon);

const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>Verdict console</title>
<link rel="icon" href="/dashboard/assets/${iconName}" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/assets/${names['.css']}">
<script type="module" src="/dashboard/assets/${names['.js']}"></script>
</head>
<body>
<div id="app"><p class="boot">Loading the Verdict console…</p></div>
<noscript><p class="boot">The Verdict console needs JavaScript.</p></noscript>
</body>
</html>
`;
fs.writeFileSync(path.join(out, 'index.html'), html);
const bytes = result.outputFiles.reduce((sum, f) => sum + f.contents.length, 0);
console.log(
  `[console] built dist/ in ${Date.now() - started} ms (${Math.round(bytes / 1024)} KB of script and style)`,
);
