import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { RedisService } from './redis.service';

/** One logged event: its sequence number, type and the JSON exactly as streamed. */
export interface LoggedEvent {
  sequence: number;
  type: string;
  json: string;
}

export class EventLogConflictError extends Error {
  constructor(responseId: string, sequence: number) {
    super(`event ${sequence} of ${responseId} was already logged (a second run of the same response?)`);
    this.name = 'EventLogConflictError';
  }
}

/**
 * Appends a batch atomically: if the first entry's id is not above the stream's last one (the
 * batch was already logged, or another run is writing), nothing is written. ARGV[1] = TTL to set
 * (0 = none), then id, type, json per event.
 */
const APPEND = `
local first = redis.pcall('XADD', KEYS[1], ARGV[2], 't', ARGV[3], 'e', ARGV[4])
if type(first) == 'table' and first.err then return first.err end
for i = 5, #ARGV, 3 do redis.call('XADD', KEYS[1], ARGV[i], 't', ARGV[i + 1], 'e', ARGV[i + 2]) end
if ARGV[1] ~= '0' then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return 'OK'
`;

/** Stream entry ids are derived from sequence numbers, so "after N" is one XRANGE, never a scan. */
export function entryId(sequence: number): string {
  return `1-${sequence}`;
}

export function sequenceOf(entry: string): number {
  return Number(entry.slice(entry.indexOf('-') + 1));
}

/**
 * The append-only event log of a background response: a Redis stream of every event, in order,
 * kept for the response's life (design.md, "Redis data model"). Explicit entry ids make Redis
 * refuse a duplicate or out-of-order append, so a second run of a job cannot interleave events.
 */
@Injectable()
export class EventLog {
  constructor(
    private readonly redis: RedisService,
    private readonly config: AppConfig,
  ) {}

  key(responseId: string): string {
    return this.redis.keys.response(responseId, 'events');
  }

  /** Appends events (already numbered, consecutive) in one atomic round trip. */
  async append(responseId: string, events: readonly LoggedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const args: Array<string | number> = [events[0]!.sequence === 0 ? this.config.responseTtlSeconds : 0];
    for (const event of events) args.push(entryId(event.sequence), event.type, event.json);
    const result = await this.redis.command.eval(APPEND, 1, this.key(responseId), ...args);
    if (result === 'OK') return;
    if (/equal or smaller/i.test(String(result))) throw new EventLogConflictError(responseId, events[0]!.sequence);
    throw new Error(`event log append failed: ${String(result)}`);
  }

  /** Events with sequence number > `after` (-1 = from the first), at most `count`. */
  async readAfter(responseId: string, after: number, count = 1_000): Promise<LoggedEvent[]> {
    const start = after < 0 ? '-' : `(${entryId(after)}`;
    const entries = (await this.redis.command.xrange(this.key(responseId), start, '+', 'COUNT', count)) as Array<[string, string[]]>;
    return entries.map(toLogged);
  }

  /** The sequence number of the last logged event, or -1. */
  async lastSequence(responseId: string): Promise<number> {
    const last = (await this.redis.command.xrevrange(this.key(responseId), '+', '-', 'COUNT', 1)) as Array<[string, string[]]>;
    return last.length === 0 ? -1 : sequenceOf(last[0]![0]);
  }

  /** Refreshes the log's TTL together with the response's other keys (called at the end of a run). */
  async touch(responseId: string): Promise<void> {
    await this.redis.command.expire(this.key(responseId), this.config.responseTtlSeconds);
  }
}

export function toLogged([id, fields]: [string, string[]]): LoggedEvent {
  // Fields come as a flat [name, value, …] list: ['t', type, 'e', json].
  let type = '';
  let json = '';
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === 't') type = fields[i + 1]!;
    else if (fields[i] === 'e') json = fields[i + 1]!;
  }
  return { sequence: sequenceOf(id), type, json };
}
