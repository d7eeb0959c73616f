import path from 'node:path';
import type { CheckParams } from '@verdict/sdk';
import type { Command } from 'commander';
import { ACTIONS, categoryLines, severity, verdictLine } from './format.ts';
import {
  action,
  CliError,
  type ClientOptions,
  type CliIO,
  clientOptions,
  EXIT,
  EXIT_CODES_HELP,
  makeClient,
  printJson,
  println,
  readFile,
} from './shared.ts';

interface CheckOptions extends ClientOptions {
  image?: string;
  imageUrl?: string;
  videoUrl?: string;
  policy: string;
  language?: string;
  metadata?: string;
  failOn?: string;
}

const IMAGE_TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
};

export function registerCheckCommand(program: Command, io: CliIO): void {
  clientOptions(
    program
      .command('check [text]')
      .description('Check a text (or "-" for stdin), an image file or an image/video URL against a policy')
      .option('--image <file>', 'an image file (JPEG, PNG, WebP, GIF), sent inline')
      .option('--image-url <url>', 'an https image URL, fetched by the service')
      .option('--video-url <url>', 'a video URL, judged synchronously on a few frames')
      .option('--policy <policyId>', 'policy to apply', 'default')
      .option('--language <code>', 'ISO 639-1 language of the text, or auto (default: en)')
      .option('--metadata <json>', 'a JSON object stored with the decision, e.g. \'{"userId":"u1"}\'')
      .option(
        '--fail-on <action>',
        `exit ${EXIT.failOn} when the action is at least this severe (warn, flag, block)`,
      ),
  )
    .addHelpText('after', EXIT_CODES_HELP)
    .action(
      action(io, async (text: string | undefined, opts: CheckOptions) => {
        const sources = [text !== undefined, !!opts.image, !!opts.imageUrl, !!opts.videoUrl].filter(Boolean);
        if (sources.length !== 1) {
          throw new CliError(
            'INVALID_ARGUMENT',
            'give exactly one of: a text, --image, --image-url, --video-url',
          );
        }
        if (opts.failOn !== undefined && !(ACTIONS as readonly string[]).includes(opts.failOn)) {
          throw new CliError(
            'INVALID_ARGUMENT',
            `--fail-on: expected ${ACTIONS.join(', ')}, got "${opts.failOn}"`,
          );
        }
        let metadata: Record<string, unknown> | undefined;
        if (opts.metadata !== undefined) {
          try {
            metadata = JSON.parse(opts.metadata);
          } catch {
            throw new CliError('INVALID_METADATA', '--metadata: not valid JSON');
          }
        }
        let params: CheckParams;
        if (opts.image) {
          const type = IMAGE_TYPES[path.extname(opts.image).toLowerCase()] ?? 'image/jpeg';
          const bytes = readFile(opts.image, '--image');
          params = {
            content: `data:${type};base64,${bytes.toString('base64')}`,
            contentType: 'image',
            policyId: opts.policy,
          };
        } else if (opts.imageUrl) {
          params = { content: opts.imageUrl, contentType: 'image', policyId: opts.policy };
        } else if (opts.videoUrl) {
          params = { content: opts.videoUrl, contentType: 'video', policyId: opts.policy };
        } else {
          const content = text === '-' ? await io.readStdin() : text!;
          params = { content, contentType: 'text', policyId: opts.policy };
        }
        if (opts.language) params.language = opts.language;
        if (metadata !== undefined) params.metadata = metadata;

        const result = await (await makeClient(opts, io)).check(params);
        if (opts.json) printJson(io, result);
        else {
          println(io, verdictLine(result));
          println(io, categoryLines(result.categories).join('\n'));
          println(io, `  ${result.provider}, ${Math.round(result.latency)} ms`);
        }
        if (opts.failOn && severity(result.action) >= severity(opts.failOn)) io.setExitCode(EXIT.failOn);
      }),
    );
}
