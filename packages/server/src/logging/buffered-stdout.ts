import fs from 'node:fs';

/**
 * A log destination that gathers the lines written during one event-loop turn and writes them to stdout together,
 * instead of one synchronous write per line (pino's default): under load that was a system call per request on the
 * event loop. Lines still pending when the process exits (a crash, process.exit) are written synchronously then.
 */
export class BufferedStdout {
  private pending: string[] = [];
  private scheduled = false;
  private readonly fd: number;

  constructor(fd = 1) {
    this.fd = fd;
    process.once('exit', () => this.flushSync());
  }

  write(line: string): boolean {
    this.pending.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return true;
  }

  private flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const chunk = this.pending.join('');
    this.pending = [];
    // process.stdout queues the write (asynchronously for pipes, as far as Node can); order is kept
    (this.fd === 1 ? process.stdout : process.stderr).write(chunk);
  }

  flushSync(): void {
    if (this.pending.length === 0) return;
    const chunk = this.pending.join('');
    this.pending = [];
    try {
      fs.writeSync(this.fd, chunk);
    } catch {}
  }
}
