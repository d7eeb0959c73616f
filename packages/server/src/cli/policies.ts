import path from 'node:path';
import type { Policy } from '@verdict/sdk';
import type { Command } from 'commander';
import { registerPolicyLifecycleCommands } from './policy-lifecycle.ts';
import {
  action,
  CliError,
  type ClientOptions,
  type CliIO,
  clientOptions,
  makeClient,
  printJson,
  println,
  readFile,
  table,
} from './shared.ts';

const POLICY_ID = /^[A-Za-z0-9_-]{1,64}$/;

function describePolicy(policy: Policy): string {
  const lines = [
    `${policy.policyId}  ${policy.name}  (version ${policy.version}${policy.builtin ? ', built-in' : ''})`,
    ...Object.entries(policy.categories).map(
      ([name, c]) => `  ${name.padEnd(12)} threshold ${c.threshold.toFixed(2)}  → ${c.action}`,
    ),
  ];
  return lines.join('\n');
}

export function registerPolicyCommands(program: Command, io: CliIO): void {
  const policies = program.command('policies').description('Manage YAML policies on a running service');

  clientOptions(
    policies
      .command('apply')
      .description('Create a policy from a YAML file, or store a new version of yours')
      .requiredOption('-f, --file <policy.yaml>', 'YAML policy with name and categories')
      .option('--id <policyId>', 'policy ID (default: the file name without .yaml/.yml)')
      .option('--create-only', 'fail with DUPLICATE_POLICY_ID instead of replacing an existing policy'),
  ).action(
    action(io, async (opts: ClientOptions & { file: string; id?: string; createOnly?: boolean }) => {
      const policyId = opts.id ?? path.basename(opts.file).replace(/\.ya?ml$/i, '');
      if (!POLICY_ID.test(policyId)) {
        throw new CliError(
          'INVALID_POLICY_ID',
          `"${policyId}" is not a valid policy ID (1–64 of A-Z a-z 0-9 _ -); pass --id`,
        );
      }
      const yamlContent = readFile(opts.file, '--file').toString('utf8');
      const client = await makeClient(opts, io);
      const policy = await client.policies.create({ policyId, yamlContent, createOnly: opts.createOnly });
      if (opts.json) return printJson(io, policy);
      println(io, `${policy.version === 1 ? 'Created' : 'Updated'} ${describePolicy(policy)}`);
    }),
  );

  clientOptions(policies.command('list').description('List the built-in policies and yours')).action(
    action(io, async (opts: ClientOptions) => {
      const { policies: list } = await (await makeClient(opts, io)).policies.list();
      if (opts.json) return printJson(io, list);
      println(
        io,
        table([
          ['POLICY', 'NAME', 'VERSION', 'CATEGORIES', 'KIND'],
          ...list.map((p) => [
            p.policyId,
            p.name,
            String(p.version),
            String(Object.keys(p.categories).length),
            p.builtin ? 'built-in' : 'own',
          ]),
        ]),
      );
    }),
  );

  clientOptions(
    policies.command('get <policyId>').description('Show a policy').option('--yaml', 'print the YAML source'),
  ).action(
    action(io, async (policyId: string, opts: ClientOptions & { yaml?: boolean }) => {
      const policy = await (await makeClient(opts, io)).policies.get(policyId);
      if (opts.json) return printJson(io, policy);
      if (opts.yaml)
        return void io.stdout.write(
          policy.yamlContent.endsWith('\n') ? policy.yamlContent : `${policy.yamlContent}\n`,
        );
      println(io, describePolicy(policy));
    }),
  );

  registerPolicyLifecycleCommands(policies, io);
}
