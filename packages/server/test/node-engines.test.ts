import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/docs.ts';

describe('installing on Node 20', () => {
  it('every package of the lock file supports the Node versions the repository declares (no EBADENGINE)', () => {
    const root = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
    const lock = JSON.parse(fs.readFileSync(path.join(REPO, 'package-lock.json'), 'utf8'));
    const floor = semver.minVersion(root.engines.node)!.version;
    expect(semver.major(floor)).toBe(20);
    const refusing = Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)
      .filter(([name, info]) => name !== '' && info.engines?.node !== undefined)
      .filter(
        ([, info]) =>
          !semver.satisfies(floor, info.engines!.node!) || !semver.satisfies('20.99.0', info.engines!.node!),
      )
      .map(([name, info]) => `${name} needs node ${info.engines!.node}`);
    // light-my-request 6.8 (Fastify's inject) needs cookie 2, which needs Node 22: the root pins 6.6
    expect(refusing).toEqual([]);
  });
});
