import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { StoredInputItem } from '../generation/types/items';
import type { ResponseObject, ResponseStatus } from '../generation/types/response';
import { RedisService } from './redis.service';

const VERSION = '1';
const TERMINAL = ['completed', 'incomplete', 'failed', 'cancelled'];

/** The engine-level conversation after a response, kept for exact replay by chaining. */
export interface ConversationRecord {
  /** `harmony` messages or `chat` messages, in the prompt module's own JSON shape. */
  format: 'harmony' | 'chat';
  /** The conversation date pinned when the chain started (keeps prompt prefixes identical). */
  date: string;
  messages: unknown[];
  /** call_id → function name of every function call in the chain (harmony messages carry no ids). */
  calls?: Record<string, string>;
}

export interface StoredResponse {
  tenant: string;
  response: ResponseObject;
}

/**
 * Moves a snapshot to a new status unless it is already terminal (a terminal status never changes
 * again). KEYS[1] snapshot hash; ARGV: allowed current statuses (space-separated, '*' = any
 * non-terminal), new status, new response JSON. Returns 1 if written, else the current status.
 */
const TRANSITION = `
local current = redis.call('HGET', KEYS[1], 'status')
if not current then return -1 end
if string.find(' ${TERMINAL.join(' ')} ', ' ' .. current .. ' ', 1, true) then return current end
if ARGV[1] ~= '*' and not string.find(' ' .. ARGV[1] .. ' ', ' ' .. current .. ' ', 1, true) then return current end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'response', ARGV[3])
return 1
`;

export type TransitionResult = { written: true } | { written: false; current: ResponseStatus | null };

/**
 * Stored responses in Redis: the Response snapshot (a hash: version, tenant, status, response JSON),
 * the request's input items and the engine-level conversation, under one hash tag and one TTL.
 * Storage only: tenant checks and OpenAI rules live in the service.
 */
@Injectable()
export class ResponseStore {
  constructor(
    private readonly redis: RedisService,
    private readonly config: AppConfig,
  ) {}

  /** Saves everything about a finished (or newly queued) response atomically. */
  async save(
    stored: StoredResponse,
    extra: { input?: StoredInputItem[]; conversation?: ConversationRecord } = {},
  ): Promise<void> {
    const id = stored.response.id;
    const ttl = this.config.responseTtlSeconds;
    const snapshot = this.key(id, 'snapshot');
    const multi = this.redis.command.multi();
    multi.hset(snapshot, 'v', VERSION, 'tenant', stored.tenant, 'status', stored.response.status, 'response', JSON.stringify(stored.response));
    multi.expire(snapshot, ttl);
    if (extra.input) multi.set(this.key(id, 'input'), JSON.stringify(extra.input), 'EX', ttl);
    if (extra.conversation) multi.set(this.key(id, 'messages'), JSON.stringify(extra.conversation), 'EX', ttl);
    await exec(multi);
  }

  /** Input items and conversation of a response whose snapshot is managed by transitions. */
  async saveHistory(id: string, extra: { input?: StoredInputItem[]; conversation?: ConversationRecord }): Promise<void> {
    const ttl = this.config.responseTtlSeconds;
    const multi = this.redis.command.multi();
    if (extra.input) multi.set(this.key(id, 'input'), JSON.stringify(extra.input), 'EX', ttl);
    if (extra.conversation) multi.set(this.key(id, 'messages'), JSON.stringify(extra.conversation), 'EX', ttl);
    await exec(multi);
  }

  /** Marks a running response for cancellation (the worker checks it after subscribing). */
  async flagCancel(id: string): Promise<void> {
    await this.redis.command.set(this.redis.keys.response(id, 'cancel'), '1', 'EX', this.config.responseTtlSeconds);
  }

  async isCancelFlagged(id: string): Promise<boolean> {
    return (await this.redis.command.exists(this.redis.keys.response(id, 'cancel'))) === 1;
  }

  /**
   * Replaces the snapshot if its status allows (`from`: the statuses it may have now, or '*' for
   * any non-terminal one). Atomic: concurrent cancels and completions cannot both win.
   */
  async transition(response: ResponseObject, from: readonly ResponseStatus[] | '*'): Promise<TransitionResult> {
    const result = await this.redis.command.eval(
      TRANSITION,
      1,
      this.key(response.id, 'snapshot'),
      from === '*' ? '*' : from.join(' '),
      response.status,
      JSON.stringify(response),
    );
    if (result === 1) return { written: true };
    return { written: false, current: result === -1 ? null : (result as ResponseStatus) };
  }

  async load(id: string): Promise<StoredResponse | null> {
    const [version, tenant, response] = await this.redis.command.hmget(this.key(id, 'snapshot'), 'v', 'tenant', 'response');
    return parseSnapshot(version ?? null, tenant ?? null, response ?? null);
  }

  /** Snapshot and conversation in one round trip, for chaining. */
  async loadWithConversation(id: string): Promise<{ stored: StoredResponse; conversation: ConversationRecord | null } | null> {
    const pipeline = this.redis.command.pipeline();
    pipeline.hmget(this.key(id, 'snapshot'), 'v', 'tenant', 'response');
    pipeline.get(this.key(id, 'messages'));
    const [[snapshotError, fields], [conversationError, conversation]] = (await pipeline.exec()) as Array<[Error | null, unknown]> as [
      [Error | null, Array<string | null>],
      [Error | null, string | null],
    ];
    if (snapshotError) throw snapshotError;
    if (conversationError) throw conversationError;
    const stored = parseSnapshot(fields[0] ?? null, fields[1] ?? null, fields[2] ?? null);
    if (!stored) return null;
    return { stored, conversation: conversation ? (JSON.parse(conversation) as ConversationRecord) : null };
  }

  async loadInput(id: string): Promise<StoredInputItem[] | null> {
    const raw = await this.redis.command.get(this.key(id, 'input'));
    return raw === null ? null : (JSON.parse(raw) as StoredInputItem[]);
  }

  /** Deletes every key of the response; true if it existed. */
  async delete(id: string): Promise<boolean> {
    const removed = await this.redis.command.unlink(...this.redis.keys.responseKeys(id));
    return removed > 0;
  }

  private key(id: string, kind: 'snapshot' | 'input' | 'messages'): string {
    return this.redis.keys.response(id, kind);
  }
}

function parseSnapshot(version: string | null, tenant: string | null, response: string | null): StoredResponse | null {
  if (version === null || tenant === null || response === null) return null;
  if (version !== VERSION) throw new Error(`unsupported snapshot version ${version}`);
  return { tenant, response: JSON.parse(response) as ResponseObject };
}

async function exec(multi: { exec(): Promise<Array<[Error | null, unknown]> | null> }): Promise<void> {
  const results = await multi.exec();
  const failed = results?.find(([error]) => error !== null);
  if (failed) throw failed[0];
}
