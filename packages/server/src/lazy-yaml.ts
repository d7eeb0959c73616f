import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

// yaml is loaded on first use by the settings that read YAML files (a providers file, image-classifier manifests):
// most starts name neither, and loading it was a fifth of `verdict --help`
const requireCjs = createRequire(import.meta.url);
let yamlModule: typeof Yaml | null = null;

/** The `yaml` package, loaded the first time it is asked for. */
export function yaml(): typeof Yaml {
  yamlModule ??= requireCjs('yaml') as typeof Yaml;
  return yamlModule;
}
