import { deleteKeys, testPrefix, TEST_REDIS_URL } from '../support/redis';
import { freePort, spawnService } from '../support/process';

const prefix = testPrefix('process');
afterAll(() => deleteKeys(prefix));

jest.setTimeout(30_000);

describe('the service as a process', () => {
  it('refuses to start on a bad setting, naming the variable', async () => {
    const service = spawnService({ PORT: 'http', ROLE: 'everything' });
    const { code } = await service.exited;
    expect(code).toBe(78);
    expect(service.output()).toContain('PORT="http": must be an integer');
    expect(service.output()).toContain('ROLE="everything": must be one of the following values: api, worker, all');
  });

  it('serves with ROLE=all and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const service = spawnService({ PORT: String(port), HOST: '127.0.0.1', REDIS_URL: TEST_REDIS_URL, KEY_PREFIX: prefix });
    await service.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/);
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
    expect(ready.status).toBe(200);
    const log = service.output().split('\n').find((line) => line.includes('listening on'))!;
    expect(JSON.parse(log)).toMatchObject({ level: 'info', role: 'all', engine: 'simulated' });
    service.child.kill('SIGTERM');
    const exit = await service.exited;
    // On failure, show what the process said.
    expect({ ...exit, output: exit.code === 0 ? '' : service.output().slice(-3000) }).toEqual({ code: 0, signal: null, output: '' });
    expect(service.output()).toContain('shutdown complete');
  });

  it('runs the worker role without HTTP, connected to Redis, and stops cleanly', async () => {
    const port = await freePort();
    const service = spawnService({ ROLE: 'worker', PORT: String(port), REDIS_URL: TEST_REDIS_URL, KEY_PREFIX: prefix });
    const line = await service.waitFor(/.*"worker started".*/);
    expect(JSON.parse(line)).toMatchObject({ role: 'worker', redis: { up: true } });
    await expect(fetch(`http://127.0.0.1:${port}/health/live`)).rejects.toThrow();
    service.child.kill('SIGTERM');
    const exit = await service.exited;
    expect({ ...exit, output: exit.code === 0 ? '' : service.output().slice(-3000) }).toEqual({ code: 0, signal: null, output: '' });
  });
});
