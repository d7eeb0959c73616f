import path from 'node:path';
import type { VideoAccepted, VideoResult } from '@verdict/sdk';
import type { Command } from 'commander';
import { ACTIONS, severity, verdictLine } from './format.ts';
import { progressBar } from './progress.ts';
import {
  action,
  CliError,
  type ClientOptions,
  type CliIO,
  clientOptions,
  EXIT,
  EXIT_CODES_HELP,
  makeClient,
  parseInteger,
  parseNumber,
  printJson,
  println,
  readFile,
} from './shared.ts';

interface VideoOptions extends ClientOptions {
  file?: string;
  policy: string;
  frameInterval?: string;
  maxFrames?: string;
  maxDuration?: string;
  webhookUrl?: string;
  wait: boolean;
  pollInterval: string;
  progress?: boolean;
  failOn?: string;
}

function describeResult(result: VideoResult): string[] {
  if (result.status === 'failed') {
    return [`FAILED  ${result.decisionId}: ${result.error?.code ?? 'ERROR'}: ${result.error?.message ?? ''}`];
  }
  const frames = result.results ?? [];
  const triggered = frames.filter((f) => f.flagged);
  const lines = [
    verdictLine({
      action: result.action ?? 'allow',
      safe: result.safe ?? true,
      flagged: result.flagged ?? false,
      decisionId: result.decisionId,
      policyId: result.policyId,
      policyVersion: result.policyVersion,
    }),
    `  ${frames.length} frames judged, ${triggered.length} flagged${result.totalLatency !== undefined ? `, ${Math.round(result.totalLatency)} ms` : ''}`,
  ];
  for (const f of triggered) {
    const cats = f.categories
      .filter((c) => c.triggered)
      .map((c) => `${c.category} ${c.score.toFixed(2)}`)
      .join(', ');
    lines.push(`  frame ${f.frameNumber} at ${f.timestamp.toFixed(1)} s: ${f.action} (${cats})`);
    if (f.evidence) lines.push(`    evidence ${f.evidence.url} (until ${f.evidence.expiresAt})`);
  }
  return lines;
}

export function registerVideoCommands(program: Command, io: CliIO): void {
  const video = program.command('video').description('Check videos (analysed in the background)');

  clientOptions(
    video
      .command('check [url]')
      .description(
        'Check a video by URL, or upload one with --file; waits for the result with a progress bar',
      )
      .option('--file <video.mp4>', 'upload this video file (≤ 100 MB) instead of giving a URL')
      .option('--policy <policyId>', 'policy to apply', 'default')
      .option('--frame-interval <seconds>', 'seconds between sampled frames (default 1, minimum 0.1)')
      .option('--max-frames <n>', 'frames sampled at most (default 60, maximum 600)')
      .option('--max-duration <seconds>', 'longest video accepted (default 300, maximum 3600)')
      .option('--webhook-url <url>', 'also send moderation.completed to this https URL')
      .option('--no-wait', 'print the accepted decision ID and estimates, and do not wait for the result')
      .option('--poll-interval <ms>', 'milliseconds between status polls', '1000')
      .option(
        '--fail-on <action>',
        `exit ${EXIT.failOn} when the action is at least this severe (warn, flag, block)`,
      )
      .option('--progress', 'show the progress bar even when stderr is not a terminal')
      .option('--no-progress', 'hide the progress bar'),
  )
    .addHelpText('after', EXIT_CODES_HELP)
    .action(
      action(io, async (url: string | undefined, opts: VideoOptions) => {
        if ((url === undefined) === (opts.file === undefined)) {
          throw new CliError('INVALID_ARGUMENT', 'give a video URL or --file, not both');
        }
        if (opts.failOn !== undefined && !(ACTIONS as readonly string[]).includes(opts.failOn)) {
          throw new CliError(
            'INVALID_ARGUMENT',
            `--fail-on: expected ${ACTIONS.join(', ')}, got "${opts.failOn}"`,
          );
        }
        const frameInterval =
          opts.frameInterval === undefined ? undefined : parseNumber(opts.frameInterval, '--frame-interval');
        const maxFrames =
          opts.maxFrames === undefined ? undefined : parseInteger(opts.maxFrames, '--max-frames', 1);
        const maxDurationSeconds =
          opts.maxDuration === undefined ? undefined : parseNumber(opts.maxDuration, '--max-duration');
        const pollInterval = parseInteger(opts.pollInterval, '--poll-interval', 10);
        const client = await makeClient(opts, io);

        let accepted: VideoAccepted;
        if (opts.file) {
          const bytes = readFile(opts.file, '--file');
          accepted = await client.video.upload({
            video: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
            filename: path.basename(opts.file),
            policyId: opts.policy,
            webhookUrl: opts.webhookUrl,
            maxDurationSeconds,
            frameInterval,
            maxFrames,
          });
        } else {
          accepted = await client.video.check({
            videoUrl: url!,
            policyId: opts.policy,
            webhookUrl: opts.webhookUrl,
            maxDurationSeconds,
            ...((frameInterval !== undefined || maxFrames !== undefined) && {
              extractionStrategy: { frameInterval, maxFrames },
            }),
          });
        }
        if (!opts.wait) {
          if (opts.json) return printJson(io, accepted);
          println(
            io,
            `Accepted ${accepted.decisionId}: about ${accepted.estimatedFrames} frames, ~${Math.ceil(accepted.estimatedTime)} s`,
          );
          return;
        }
        const bar = progressBar(io, opts.progress, 'video', accepted.estimatedFrames);
        let result: VideoResult;
        try {
          result = await client.video.waitForResult(accepted.decisionId, {
            pollInterval,
            onProgress: (s) => bar.update(s.progress.framesProcessed, s.progress.framesTotal || undefined),
          });
          if (result.status === 'completed') {
            const total = result.results?.length ?? accepted.estimatedFrames;
            bar.update(total, total);
          }
        } finally {
          bar.stop();
        }
        if (opts.json) printJson(io, result);
        else println(io, describeResult(result).join('\n'));
        if (result.status === 'failed') io.setExitCode(EXIT.api);
        else if (opts.failOn && severity(result.action ?? 'allow') >= severity(opts.failOn))
          io.setExitCode(EXIT.failOn);
      }),
    );
}
