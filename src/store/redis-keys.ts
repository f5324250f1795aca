/**
 * Every Redis key and channel of the service, in one place (design.md, "Redis data model").
 *
 * Keys of one response share the hash tag `{resp_…}` so they live in one Cluster slot and can be
 * touched together by Lua scripts and MULTI. The BullMQ prefix is hash-tagged on the key prefix so
 * that all of a queue's keys share a slot too.
 */
export type ResponseKeyKind = 'snapshot' | 'input' | 'messages' | 'events' | 'cancel' | 'heartbeat' | 'retried';

export class RedisKeys {
  constructor(readonly prefix: string) {}

  /** `{prefix}:{resp_ID}:{kind}` */
  response(responseId: string, kind: ResponseKeyKind): string {
    return `${this.prefix}:{${responseId}}:${kind}`;
  }

  /** All keys of one response, for deletion and TTL refresh. */
  responseKeys(responseId: string): string[] {
    return RESPONSE_KEY_KINDS.map((kind) => this.response(responseId, kind));
  }

  /** Pub/sub channel on which cancels are broadcast to every worker. */
  cancelChannel(): string {
    return `${this.prefix}:cancel`;
  }

  /** Sorted set of background responses being run (score: when their run started), for the reaper. */
  running(): string {
    return `${this.prefix}:running`;
  }

  /** Sorted set of a tenant's queued background responses (score: when queued), bounding its queue. */
  queued(tenant: string): string {
    return `${this.prefix}:queued:${tenant}`;
  }

  /** BullMQ `prefix` option: `{prefix}:bull`, hash-tagged for Cluster. */
  queuePrefix(): string {
    return `{${this.prefix}}:bull`;
  }

  /** A glob that matches every key this prefix owns (tests clean up with it). */
  everything(): string[] {
    return [`${this.prefix}:*`, `{${this.prefix}}:*`];
  }
}

export const RESPONSE_KEY_KINDS: readonly ResponseKeyKind[] = [
  'snapshot',
  'input',
  'messages',
  'events',
  'cancel',
  'heartbeat',
  'retried',
];

export const QUEUE_NAMES = { responses: 'responses' } as const;
