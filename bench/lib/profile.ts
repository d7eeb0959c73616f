// Self time per function and per module of a V8 .cpuprofile (as written by node --cpu-prof).
import fs from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

function moduleOf(url: string): string {
  if (!url) return '(native/gc/idle)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url;
  const m = url.match(/packages\/([^/]+)\/(?:dist|src)\/(.+)$/);
  return m ? `${m[1]}/${m[2]}` : url.replace(/^file:\/\//, '');
}

export function summariseProfile(file: string, top: number): void {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[] };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const hits = new Map<number, number>();
  for (const s of p.samples) hits.set(s, (hits.get(s) ?? 0) + 1);
  const total = p.samples.length;
  const fn = new Map<string, number>();
  const mod = new Map<string, number>();
  for (const [id, h] of hits) {
    const n = byId.get(id)!;
    const name = n.callFrame.functionName || '(anonymous)';
    const m = moduleOf(n.callFrame.url);
    const key = `${name}  ${m}:${n.callFrame.lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + h);
    mod.set(m, (mod.get(m) ?? 0) + h);
  }
  const pct = (h: number) => `${((100 * h) / total).toFixed(1).padStart(5)} %`;
  const idle = [...fn].filter(([k]) => k.startsWith('(idle)')).reduce((a, [, h]) => a + h, 0);
  console.log(`\n${total} samples (${pct(idle)} idle)\n\nself time by module:`);
  for (const [m, h] of [...mod].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(h)}  ${m}`);
  console.log('\nself time by function:');
  for (const [k, h] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(h)}  ${k}`);
}
