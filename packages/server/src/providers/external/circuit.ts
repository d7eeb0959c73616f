export type CircuitState = 'closed' | 'open' | 'half_open';

/**
 * A circuit breaker per provider: after `failures` consecutive failed calls it opens, and calls fail at once (a
 * fallback answers instead of every request waiting out a timeout); after `openMs` one trial call is let through
 * (half-open): its success closes the circuit, its failure opens it again.
 */
export class CircuitBreaker {
  private consecutiveFailures = 0;
  private openedAt = 0;
  private trialInFlight = false;
  private stateValue: CircuitState = 'closed';

  constructor(
    private readonly failures: number,
    private readonly openMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): CircuitState {
    if (this.stateValue === 'open' && this.now() - this.openedAt >= this.openMs) return 'half_open';
    return this.stateValue;
  }

  /** Whether a call may go out now; in half-open, only one trial call at a time. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    this.stateValue = 'half_open';
    return true;
  }

  success(): void {
    this.consecutiveFailures = 0;
    this.trialInFlight = false;
    this.stateValue = 'closed';
  }

  failure(): void {
    this.trialInFlight = false;
    this.consecutiveFailures++;
    if (this.stateValue === 'half_open' || this.consecutiveFailures >= this.failures) {
      this.stateValue = 'open';
      this.openedAt = this.now();
    }
  }

  /** A call that was let through but never went out (e.g. no slot before the deadline) does not count. */
  release(): void {
    if (this.trialInFlight) {
      this.trialInFlight = false;
      this.stateValue = 'open';
    }
  }
}
