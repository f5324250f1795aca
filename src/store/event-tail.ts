import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { EventLog, entryId, toLogged, type LoggedEvent } from './event-log';
import { RedisService } from './redis.service';

type Listener = (events: LoggedEvent[]) => void;

interface Follower {
  after: number;
  listener: Listener;
}

const BLOCK_MS = 10_000;
const BATCH = 512;

/**
 * Follows many event logs live over ONE blocking Redis connection per process: a single
 * `XREAD BLOCK` over every followed stream, its results fanned out to the followers. A new
 * follower interrupts the pending read (`CLIENT UNBLOCK`) so it joins at once. Thousands of
 * concurrent stream readers therefore cost one connection, not one each (issue: 1,000 readers
 * on one replica).
 */
@Injectable()
export class EventTail implements OnApplicationShutdown {
  private readonly logger = new Logger(EventTail.name);
  private readonly followers = new Map<string, Set<Follower>>();
  private connection?: Redis;
  private clientId?: number;
  private running = false;
  private closed = false;
  private reading = false;

  constructor(
    private readonly redis: RedisService,
    private readonly log: EventLog,
  ) {}

  /**
   * Calls `listener` with each batch of events after sequence `after` as they are appended, until
   * the returned function is called. Replaying what was logged earlier is the caller's job
   * (EventLog.readAfter); following from its last seen sequence leaves no gap.
   */
  follow(responseId: string, after: number, listener: Listener): () => void {
    if (this.closed) throw new Error('event tail is closed');
    const key = this.log.key(responseId);
    const follower: Follower = { after, listener };
    let set = this.followers.get(key);
    if (!set) this.followers.set(key, (set = new Set()));
    set.add(follower);
    this.wake();
    return () => {
      set.delete(follower);
      if (set.size === 0 && this.followers.get(key) === set) this.followers.delete(key);
    };
  }

  get size(): number {
    let count = 0;
    for (const set of this.followers.values()) count += set.size;
    return count;
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.followers.clear();
    if (this.connection) {
      await this.unblock();
      await this.redis.releaseBlocking(this.connection);
    }
  }

  /** Starts the read loop, or interrupts a pending read so it picks up the new follower. */
  private wake(): void {
    if (!this.running) {
      this.running = true;
      void this.loop();
    } else if (this.reading) {
      void this.unblock();
    }
  }

  private async unblock(): Promise<void> {
    if (this.clientId === undefined) return;
    try {
      await this.redis.command.client('UNBLOCK', this.clientId);
    } catch (error) {
      this.logger.warn(`CLIENT UNBLOCK failed: ${(error as Error).message}`);
    }
  }

  private async loop(): Promise<void> {
    try {
      this.connection ??= this.redis.createBlocking('event-tail');
      this.clientId ??= Number(await this.connection.client('ID'));
      while (!this.closed && this.followers.size > 0) {
        const keys = [...this.followers.keys()];
        const ids = keys.map((key) => readAfterId(Math.min(...[...this.followers.get(key)!].map((f) => f.after))));
        this.reading = true;
        let reply: Array<[string, Array<[string, string[]]>]> | null;
        try {
          reply = (await this.connection.xread('COUNT', BATCH, 'BLOCK', BLOCK_MS, 'STREAMS', ...keys, ...ids)) as typeof reply;
        } finally {
          this.reading = false;
        }
        for (const [key, entries] of reply ?? []) this.dispatch(key, entries.map(toLogged));
      }
    } catch (error) {
      if (!this.closed) {
        this.logger.error({ err: error }, 'event tail read failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      this.running = false;
    }
    if (!this.closed && this.followers.size > 0) this.wake();
  }

  private dispatch(key: string, events: LoggedEvent[]): void {
    const set = this.followers.get(key);
    if (!set || events.length === 0) return;
    for (const follower of [...set]) {
      const fresh = events.filter((event) => event.sequence > follower.after);
      if (fresh.length === 0) continue;
      follower.after = fresh[fresh.length - 1]!.sequence;
      try {
        follower.listener(fresh);
      } catch (error) {
        this.logger.error({ err: error }, 'event tail listener threw');
      }
    }
  }
}

/** XREAD returns entries after the given id; -1 means from the first entry. */
function readAfterId(after: number): string {
  return after < 0 ? '0-0' : entryId(after);
}
