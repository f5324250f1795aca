import type { ResponseStreamEvent } from '../generation/types/events';
import { EventLog, type LoggedEvent } from '../store/event-log';

/** An event as the log stores it: its number, type and the exact JSON streamed to clients. */
export function toLoggedEvent(event: ResponseStreamEvent): LoggedEvent {
  return { sequence: event.sequence_number, type: event.type, json: JSON.stringify(event) };
}

/**
 * Appends a running response's events to its log in order, batching the events produced in one
 * turn of the event loop into one atomic append (no per-token round trip).
 */
export class LogWriter {
  private pending: LoggedEvent[] = [];
  private scheduled = false;
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;
  lastSequence = -1;

  constructor(
    private readonly log: EventLog,
    private readonly responseId: string,
  ) {}

  push(event: ResponseStreamEvent): void {
    if (this.failure) throw this.failure;
    this.pending.push(toLoggedEvent(event));
    this.lastSequence = event.sequence_number;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Resolves once everything pushed is in Redis; rejects if an append failed. */
  async drain(): Promise<void> {
    this.flush();
    await this.chain;
    if (this.failure) throw this.failure;
  }

  private flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.chain = this.chain.then(() => this.log.append(this.responseId, batch)).catch((error: unknown) => {
      this.failure ??= error;
    });
  }
}
