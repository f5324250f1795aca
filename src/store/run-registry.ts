import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { RedisService } from './redis.service';

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
