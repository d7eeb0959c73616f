import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root directory. */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

export function readDoc(name: string): string {
  return fs.readFileSync(path.join(REPO, 'docs', name), 'utf8');
}

/** The body of the fenced code block that follows `<!-- snippet: name -->` in a markdown page. */
export function snippet(markdown: string, name: string): string {
  const match = new RegExp(`<!-- snippet: ${name} -->\\s*\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\``).exec(markdown);
  if (!match) throw new Error(`no snippet "${name}" in the page`);
  return match[1]!;
}

/** Every fenced code block of a language (e.g. `yaml`, `sh`) in a markdown page, in order. */
export function codeBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
}

/** Whether an executable is on the PATH. */
export function onPath(command: string): boolean {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir !== '' && fs.existsSync(path.join(dir, command)));
}
