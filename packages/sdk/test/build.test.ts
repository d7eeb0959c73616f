import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const sdkRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(sdkRoot, '../..');
// Inside the repository's node_modules, so the build resolves @noble/hashes like an installed package would.
const outDir = path.join(repoRoot, 'node_modules/.cache', `verdict-sdk-build-${process.pid}`);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : [];
  });
}

describe('the published build', () => {
  afterAll(() => fs.rmSync(outDir, { recursive: true, force: true }));

  it('imports no Node built-ins anywhere in src/ (runs in browsers)', () => {
    const builtins = new Set(builtinModules);
    for (const file of sourceFiles(path.join(sdkRoot, 'src'))) {
      const source = fs.readFileSync(file, 'utf8');
      for (const match of source.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        const specifier = match[1]!;
        expect(
          specifier.startsWith('node:') || builtins.has(specifier.split('/')[0]!),
          `${file}: ${specifier}`,
        ).toBe(false);
      }
      expect(source, file).not.toMatch(/\bBuffer\.|\brequire\(/);
    }
  });

  it('compiles with browser libs and no Node types to ESM + declarations, and runs in plain Node', async () => {
    // The build's tsconfig has lib DOM and `types: []`: any Node-only global in src/ fails here.
    await run(process.execPath, [path.join(sdkRoot, 'scripts/build.mjs'), '--out-dir', outDir], {
      cwd: sdkRoot,
    });
    const pkg = JSON.parse(fs.readFileSync(path.join(outDir, 'package.json'), 'utf8'));
    expect(pkg.exports['.']).toEqual({ types: './index.d.ts', import: './index.js', default: './index.js' });
    expect(pkg.type).toBe('module');
    expect(pkg.dependencies).toHaveProperty('@noble/hashes');
    for (const file of ['index.js', 'index.d.ts', 'generated/openapi.d.ts', 'README.md']) {
      expect(fs.existsSync(path.join(outDir, file)), file).toBe(true);
    }
    // Relative imports were rewritten to .js for runtime.
    expect(fs.readFileSync(path.join(outDir, 'client.js'), 'utf8')).toMatch(/from ["']\.\/core\.js["']/);

    // Plain Node, no TypeScript loader: the built package verifies a signature and builds a client.
    const script = `
      import { createHmac } from 'node:crypto';
      import Verdict, { verifyWebhookSignature, NotFoundError } from ${JSON.stringify(path.join(outDir, 'index.js'))};
      const t = Math.floor(Date.now() / 1000);
      const sig = createHmac('sha256', 'whsec_x').update(t + '.{}').digest('hex');
      const client = new Verdict({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1' });
      console.log(JSON.stringify([verifyWebhookSignature('{}', 't=' + t + ',v1=' + sig, 'whsec_x'),
        typeof client.decisions.list, new NotFoundError({ code: 'X', message: 'm' }).name]));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    expect(JSON.parse(stdout)).toEqual([true, 'function', 'NotFoundError']);

    // A consumer with plain compiler settings (no .ts imports, no skipLibCheck) type-checks against the build.
    const consumer = path.join(outDir, '..', `${path.basename(outDir)}-consumer`);
    fs.mkdirSync(path.join(consumer, 'node_modules/@verdict'), { recursive: true });
    fs.symlinkSync(outDir, path.join(consumer, 'node_modules/@verdict/sdk'), 'dir');
    fs.writeFileSync(path.join(consumer, 'package.json'), '{"type":"module"}');
    fs.writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          strict: true,
          noEmit: true,
          lib: ['ES2022', 'DOM'],
          types: [],
        },
        files: ['main.ts'],
      }),
    );
    fs.writeFileSync(
      path.join(consumer, 'main.ts'),
      `import { Verdict, type CheckResult, type Decision } from '@verdict/sdk';
      const client = new Verdict({ apiKey: 'k' });
      export const result: Promise<CheckResult> = client.check({ content: 'hi', policyId: 'default' });
      export async function all(): Promise<Decision[]> {
        const out: Decision[] = [];
        for await (const d of client.decisions.list()) out.push(d);
        return out;
      }
      // @ts-expect-error an unknown field is refused
      client.check({ content: 'hi', policyId: 'default', colour: 'red' });
      `,
    );
    try {
      await run(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', consumer]);
    } catch (error) {
      throw new Error(
        `the built types do not type-check for a consumer:\n${(error as { stdout: string }).stdout}`,
      );
    } finally {
      fs.rmSync(consumer, { recursive: true, force: true });
    }
  }, 90_000);
});
