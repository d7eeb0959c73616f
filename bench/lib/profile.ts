// Self time per function and per module of a V8 .cpuprofile (as written by node --cpu-prof).
import fs from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
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

/**
 * Prints self time per module and function, and total (inclusive) time per function. With `lastMs`, only the samples
 * of the profile's last `lastMs` milliseconds count (the load window, without start-up and module loading).
 */
export function summariseProfile(file: string, top: number, lastMs?: number): void {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    nodes: Node[];
    samples: number[];
    timeDeltas: number[];
    endTime: number;
    startTime: number;
  };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let samples = p.samples;
  if (lastMs !== undefined) {
    const from = p.endTime - lastMs * 1000;
    let t = p.startTime;
    samples = p.samples.filter((_, i) => {
      t += p.timeDeltas[i] ?? 0;
      return t >= from;
    });
  }
  const hits = new Map<number, number>();
  for (const s of samples) hits.set(s, (hits.get(s) ?? 0) + 1);
  const total = samples.length;
  const keyOf = (n: Node) =>
    `${n.callFrame.functionName || '(anonymous)'}  ${moduleOf(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  const inclusive = new Map<string, number>();
  for (const [id, h] of hits) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = keyOf(byId.get(at)!);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + h);
    }
  }
  const fn = new Map<string, number>();
  const mod = new Map<string, number>();
  for (const [id, h] of hits) {
    const n = byId.get(id)!;
    const m = moduleOf(n.callFrame.url);
    const key = keyOf(n);
    fn.set(key, (fn.get(key) ?? 0) + h);
    mod.set(m, (mod.get(m) ?? 0) + h);
  }
  const pct = (h: number) => `${((100 * h) / total).toFixed(1).padStart(5)} %`;
  const idle = [...fn].filter(([k]) => k.startsWith('(idle)')).reduce((a, [, h]) => a + h, 0);
  console.log(`\n${total} samples (${pct(idle)} idle)\n\nself time by module:`);
  for (const [m, h] of [...mod].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(h)}  ${m}`);
  console.log('\nself time by function:');
  for (const [k, h] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(h)}  ${k}`);
  console.log('\ntotal time (self and callees) by function:');
  const total2 = [...inclusive].filter(([k]) => !k.startsWith('(root)'));
  for (const [k, h] of total2.sort((a, b) => b[1] - a[1]).slice(0, top * 2)) console.log(`${pct(h)}  ${k}`);
}
