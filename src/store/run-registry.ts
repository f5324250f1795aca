import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { RedisService } from './redis.service';

const RESERVE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
return 1
`;

/**
 * Which background responses are running, and whether their worker is alive: each run has a
 * heartbeat key with a TTL of three intervals, refreshed by its worker, and an entry in a sorted
 * set that reapers scan. A worker killed with -9 stops refreshing; its runs' heartbeats expire.
 */
@Injectable()
export class RunRegistry {
  constructor(
    private readonly redis: RedisService,
    private readonly config: AppConfig,
  ) {}

  private get ttlMs(): number {
    return this.config.heartbeatIntervalMs * 3;
  }

  /**
   * Reserves a place in the tenant's queue; false when it is full. Entries older than the
   * response TTL are dropped first, so a lost entry cannot shrink the queue for ever.
   */
  async reserve(tenant: string, responseId: string, limit: number): Promise<boolean> {
    const reserved = await this.redis.command.eval(
      RESERVE,
      1,
      this.redis.keys.queued(tenant),
      Date.now(),
      Date.now() - this.config.responseTtlSeconds * 1000,
      limit,
      responseId,
    );
    return reserved === 1;
  }

  /** Frees the place (the run started, was cancelled, or could not be enqueued). */
  async release(tenant: string, responseId: string): Promise<void> {
    await this.redis.command.zrem(this.redis.keys.queued(tenant), responseId);
  }

  async start(responseId: string, worker: string): Promise<void> {
    await this.redis.command
      .multi()
      .set(this.redis.keys.response(responseId, 'heartbeat'), worker, 'PX', this.ttlMs)
      .zadd(this.redis.keys.running(), Date.now(), responseId)
      .exec();
  }

  /** Refreshes the heartbeats of several runs in one round trip. */
  async beat(responseIds: readonly string[], worker: string): Promise<void> {
    if (responseIds.length === 0) return;
    const pipeline = this.redis.command.pipeline();
    for (const id of responseIds) pipeline.set(this.redis.keys.response(id, 'heartbeat'), worker, 'PX', this.ttlMs);
    await pipeline.exec();
  }

  async finish(responseId: string): Promise<void> {
    await this.redis.command.multi().del(this.redis.keys.response(responseId, 'heartbeat')).zrem(this.redis.keys.running(), responseId).exec();
  }

  /** Runs registered longer than one heartbeat TTL ago whose heartbeat has expired. */
  async orphans(): Promise<string[]> {
    const ids = await this.redis.command.zrangebyscore(this.redis.keys.running(), '-inf', Date.now() - this.ttlMs);
    if (ids.length === 0) return [];
    const pipeline = this.redis.command.pipeline();
    for (const id of ids) pipeline.exists(this.redis.keys.response(id, 'heartbeat'));
    const alive = (await pipeline.exec()) ?? [];
    return ids.filter((_, i) => alive[i]?.[1] === 0);
  }

  async forget(responseId: string): Promise<void> {
    await this.redis.command.zrem(this.redis.keys.running(), responseId);
  }
}
