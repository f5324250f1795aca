import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Redis, type RedisOptions } from 'ioredis';
import { AppConfig } from '../config/app-config';
import { RedisKeys } from './redis-keys';

export type RedisHealth = { up: true; latencyMs: number } | { up: false; reason: string };

type ErrorListener = (connection: string, error: Error) => void;

/**
 * Owns the process's Redis connections: one command connection shared by everything, one
 * subscriber (created on first use), and blocking-read connections made on demand (a blocking
 * XREAD or BRPOP would stall every other command on a shared connection). All are closed after
 * the HTTP server has drained (onApplicationShutdown runs after Nest disposes the adapter).
 */
@Injectable()
export class RedisService implements OnApplicationShutdown {
  readonly keys: RedisKeys;
  readonly command: Redis;
  private subscriberConnection?: Redis;
  private readonly blocking = new Set<Redis>();
  private readonly errorListeners = new Set<ErrorListener>();
  private readonly logger = new Logger(RedisService.name);
  private lastLoggedError = 0;

  constructor(private readonly config: AppConfig) {
    this.keys = new RedisKeys(config.keyPrefix);
    this.command = this.connect('command');
  }

  /** Connection options: fail commands fast while Redis is down instead of queueing forever. */
  static options(connectionName: string): RedisOptions {
    return {
      connectionName,
      maxRetriesPerRequest: 2,
      enableReadyCheck: true,
      connectTimeout: 5_000,
      // How long a closing socket may linger; ioredis arms this even for a socket that already
      // died, so a long value only keeps a shut-down process (or test) alive for nothing.
      disconnectTimeout: 200,
      retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 2_000),
    };
  }

  get subscriber(): Redis {
    this.subscriberConnection ??= this.connect('subscriber');
    return this.subscriberConnection;
  }

  /** A dedicated connection for blocking reads; release it with `releaseBlocking`. */
  createBlocking(name = 'blocking'): Redis {
    const connection = this.connect(name, { maxRetriesPerRequest: null });
    this.blocking.add(connection);
    return connection;
  }

  async releaseBlocking(connection: Redis): Promise<void> {
    this.blocking.delete(connection);
    await quit(connection);
  }

  /** A connection for BullMQ (which needs `maxRetriesPerRequest: null`); closed with the others. */
  createQueueConnection(name: string): Redis {
    const connection = this.connect(name, { maxRetriesPerRequest: null });
    this.blocking.add(connection);
    return connection;
  }

  /** Called for every connection error (metrics count them). */
  onError(listener: ErrorListener): void {
    this.errorListeners.add(listener);
  }

  /**
   * PING within `timeoutMs`. A connection still being set up gets that long to become ready; one
   * that is reconnecting (Redis went away) is reported down at once rather than queueing the PING.
   */
  async health(timeoutMs = 1_000): Promise<RedisHealth> {
    const status = this.command.status;
    if (status !== 'ready' && !FIRST_CONNECT.has(status)) return { up: false, reason: `connection ${status}` };
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.command.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no PING reply within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      return { up: true, latencyMs: performance.now() - started };
    } catch (error) {
      return { up: false, reason: (error as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const all = [this.command, ...(this.subscriberConnection ? [this.subscriberConnection] : []), ...this.blocking];
    this.blocking.clear();
    await Promise.all(all.map(quit));
  }

  private connect(name: string, overrides: RedisOptions = {}): Redis {
    const connection = new Redis(this.config.redisUrl, {
      ...RedisService.options(`${this.config.keyPrefix}:${name}`),
      ...overrides,
    });
    // Without a listener ioredis would crash the process on the first connection error.
    connection.on('error', (error: Error) => {
      for (const listener of this.errorListeners) listener(name, error);
      const now = Date.now();
      if (now - this.lastLoggedError > 5_000) {
        this.lastLoggedError = now;
        this.logger.warn(`Redis ${name} connection error: ${error.message}`);
      }
    });
    return connection;
  }
}

const FIRST_CONNECT = new Set(['wait', 'connecting', 'connect']);

async function quit(connection: Redis): Promise<void> {
  if (connection.status === 'end') return;
  // Between reconnect attempts there is no socket: disconnect() just cancels the retry timer and
  // ioredis never emits 'end', so there is nothing to wait for.
  if (connection.status === 'reconnecting' || connection.status === 'wait') {
    connection.disconnect(false);
    return;
  }
  const ended = new Promise<void>((resolve) => connection.once('end', () => resolve()));
  try {
    // QUIT lets pending replies arrive first.
    if (connection.status === 'ready') await connection.quit();
    else connection.disconnect(false);
  } catch {
    connection.disconnect(false);
  }
  await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
}
