import { startGateway, type Gateway } from '../support/gateway';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway({}, 'disconnect');
});
afterAll(async () => {
  await gw.close();
});

async function script(marker: string): Promise<void> {
  // An endless, slow answer: only the client going away can end it.
  const response = await fetch(`${gw.sim.url}/sim/scripts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ match: marker, completion: '<|channel|>final<|message|>and on and on ', loop: true, tokensPerSecond: 200 }),
  });
  expect(response.status).toBe(201);
}

async function engineSawAbort(marker: string): Promise<boolean> {
  const response = await fetch(`${gw.sim.url}/sim/requests?contains=${encodeURIComponent(marker)}&status=aborted&waitMs=5000`);
  const body = (await response.json()) as { data: Array<{ status: string }> };
  return body.data.some((request) => request.status === 'aborted');
}

describe('a client that goes away', () => {
  it('aborts the engine request of a foreground stream', async () => {
    const marker = `stream-gone-${Date.now()}`;
    await script(marker);
    const controller = new AbortController();
    const response = await fetch(`${gw.app.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-oss-simulated', input: marker, stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('response.output_text.delta')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(await engineSawAbort(marker)).toBe(true);
  });

  it('aborts the engine request of a sync request', async () => {
    const marker = `sync-gone-${Date.now()}`;
    await script(marker);
    const controller = new AbortController();
    const pending = fetch(`${gw.app.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-oss-simulated', input: marker }),
      signal: controller.signal,
    }).catch(() => 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    expect(await pending).toBe('aborted');
    expect(await engineSawAbort(marker)).toBe(true);
  });
});
