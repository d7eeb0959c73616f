// Entry point of an image model worker thread. Workers do not inherit the TypeScript loader of the parent (tsx,
// vitest), so this plain module registers tsx and then imports the TypeScript worker named in workerData.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
