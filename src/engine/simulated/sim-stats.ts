/**
 * What the simulated engine saw, for tests: one record per generation request (the most recent
 * ones), with whether it finished or was aborted, i.e. its caller went away or, over HTTP, the
 * client closed the connection before the answer ended.
 */
export type SimEndpoint = 'completions' | 'chat';
export type SimRequestStatus = 'active' | 'completed' | 'aborted' | 'rejected';

export interface SimRequestRecord {
  id: number;
  endpoint: SimEndpoint;
  stream: boolean;
  status: SimRequestStatus;
  promptTokens: number;
  maxTokens?: number;
  scriptId?: string;
  /** Tokens handed to the caller (or written to the connection) so far. */
  outputTokens: number;
  finishReason?: string;
  /** Why it was rejected (HTTP error message). */
  error?: string;
  startedAt: number;
  endedAt?: number;
}

export interface SimTotals {
  requests: number;
  active: number;
  completed: number;
  aborted: number;
  rejected: number;
  outputTokens: number;
}

interface Entry {
  record: SimRequestRecord;
  /** Searchable prompt text (decoded harmony prompt or chat message texts). */
  prompt: string;
}

const KEEP_RECORDS = 1000;
const KEEP_PROMPT_CHARS = 1_000_000;

export class SimStats {
  private readonly entries: Entry[] = [];
  private readonly waiters = new Set<() => void>();
  private nextId = 1;
  private readonly totals: SimTotals = { requests: 0, active: 0, completed: 0, aborted: 0, rejected: 0, outputTokens: 0 };

  begin(endpoint: SimEndpoint, stream: boolean, prompt: string, promptTokens: number, maxTokens?: number): SimRequestRecord {
    const record: SimRequestRecord = {
      id: this.nextId++,
      endpoint,
      stream,
      status: 'active',
      promptTokens,
      outputTokens: 0,
      startedAt: Date.now(),
    };
    if (maxTokens !== undefined) record.maxTokens = maxTokens;
    this.entries.push({ record, prompt: prompt.length > KEEP_PROMPT_CHARS ? prompt.slice(-KEEP_PROMPT_CHARS) : prompt });
    if (this.entries.length > KEEP_RECORDS) this.entries.shift();
    this.totals.requests++;
    this.totals.active++;
    this.notify();
    return record;
  }

  addTokens(record: SimRequestRecord, count: number): void {
    record.outputTokens += count;
    this.totals.outputTokens += count;
  }

  end(record: SimRequestRecord, status: Exclude<SimRequestStatus, 'active'>, detail?: { finishReason?: string; error?: string }): void {
    if (record.status !== 'active') return;
    record.status = status;
    record.endedAt = Date.now();
    if (detail?.finishReason !== undefined) record.finishReason = detail.finishReason;
    if (detail?.error !== undefined) record.error = detail.error;
    this.totals.active--;
    this.totals[status]++;
    this.notify();
  }

  snapshot(): SimTotals {
    return { ...this.totals };
  }

  /** Recent requests whose prompt contains `marker` (all recent ones without a marker), oldest first. */
  requests(marker?: string): SimRequestRecord[] {
    return this.entries.filter((e) => marker === undefined || e.prompt.includes(marker)).map((e) => ({ ...e.record }));
  }

  /** Resolves with the first recent request matching `marker` and `predicate`, or rejects after `timeoutMs`. */
  waitFor(marker: string, predicate: (record: SimRequestRecord) => boolean, timeoutMs: number): Promise<SimRequestRecord> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = this.requests(marker).find(predicate);
        if (!found) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no simulated request matching ${JSON.stringify(marker)} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
