/**
 * `--name value` (or `--name=value`) flags of a suite, each with a default that also fixes its type. An unknown flag
 * or a value of the wrong type stops the run with exit code 2, naming it.
 */
export function parseFlags<T extends Record<string, string | number>>(argv: string[], defaults: T): T {
  const out: Record<string, string | number> = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const m = /^--([a-z][a-z-]*)(?:=(.*))?$/.exec(arg);
    const name = m?.[1]?.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (!m || !name || !(name in defaults)) usage(`unknown argument "${arg}"`, defaults);
    const raw = m[2] ?? argv[++i];
    if (raw === undefined) usage(`--${m[1]} needs a value`, defaults);
    if (typeof defaults[name] === 'number') {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n) || n < 0)
        usage(`--${m[1]} expects a number, got "${raw}"`, defaults);
      out[name] = n;
    } else out[name] = raw;
  }
  return out as T;
}

function usage(problem: string, defaults: Record<string, string | number>): never {
  const kebab = (k: string) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const options = Object.entries(defaults)
    .map(([k, v]) => `--${kebab(k)} ${v}`)
    .join(' ');
  process.stderr.write(`${problem}\noptions (defaults): ${options}\n`);
  process.exit(2);
}
