import { Controller, Get, Module } from '@nestjs/common';
import { createLogger } from '../../src/common/logging/logger';
import { gracefulClose } from '../../src/app/shutdown';
import { deleteKeys, testPrefix } from '../support/redis';
import { startTestApp } from '../support/app';

let release: () => void = () => undefined;

@Controller('slow')
class SlowController {
  @Get()
  async slow(): Promise<{ done: true }> {
    await new Promise<void>((resolve) => (release = resolve));
    return { done: true };
  }
}

@Module({ controllers: [SlowController] })
class SlowModule {}

const prefix = testPrefix('shutdown');
afterAll(() => deleteKeys(prefix));
const logger = createLogger('silent', 'api');

describe('graceful shutdown', () => {
  it('lets an in-flight request finish, refuses new connections, then closes', async () => {
    const t = await startTestApp({ KEY_PREFIX: prefix }, { imports: [SlowModule] });
    const inFlight = fetch(`${t.url}/slow`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    const closed = gracefulClose(t.app, { timeoutMs: 4_000, logger, server: t.server });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(fetch(`${t.url}/health/live`, { headers: { connection: 'close' } })).rejects.toThrow();
    release();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ done: true });
    await closed;
    // Closed once the request was done, not at the end of the grace period.
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('cuts a request that outlives the grace period, so shutdown never hangs', async () => {
    const t = await startTestApp({ KEY_PREFIX: prefix }, { imports: [SlowModule] });
    const inFlight = fetch(`${t.url}/slow`).then(
      () => 'answered',
      () => 'cut',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await gracefulClose(t.app, { timeoutMs: 300, logger, server: t.server });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await inFlight).toBe('cut');
    release();
  });
});
