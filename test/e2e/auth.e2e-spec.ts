import { startGateway, type Gateway } from '../support/gateway';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway({ API_KEYS: 'sk-acme-0001:acme,sk-globex-0002:globex' }, 'auth');
});
afterAll(async () => {
  await gw.close();
});

const MODEL = 'gpt-oss-simulated';

describe('API keys and tenants', () => {
  it('rejects a missing or wrong key with 401, and leaves health open', async () => {
    await expect(gw.client('sk-wrong-9999').responses.create({ model: MODEL, input: 'hi' })).rejects.toMatchObject({
      status: 401,
      error: { code: 'invalid_api_key', type: 'invalid_request_error' },
    });
    const bare = await fetch(`${gw.app.url}/v1/models`);
    expect(bare.status).toBe(401);
    expect(await bare.json()).toEqual({ error: expect.objectContaining({ code: 'missing_api_key', param: null }) });
    expect((await fetch(`${gw.app.url}/health/ready`)).status).toBe(200);
  });

  it("keeps each tenant's responses invisible to the others", async () => {
    const acme = gw.client('sk-acme-0001');
    const globex = gw.client('sk-globex-0002');
    const created = await acme.responses.create({ model: MODEL, input: 'acme secret' });
    expect((await acme.responses.retrieve(created.id)).id).toBe(created.id);
    await expect(globex.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(globex.responses.inputItems.list(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(globex.responses.delete(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(globex.responses.create({ model: MODEL, input: 'x', previous_response_id: created.id })).rejects.toMatchObject({
      status: 400,
      error: { code: 'previous_response_not_found' },
    });
    // Reasoning sealed for one tenant cannot be replayed by another.
    const sealed = await acme.responses.create({ model: MODEL, input: 'think', store: false, include: ['reasoning.encrypted_content'] });
    const reasoning = sealed.output.find((item) => item.type === 'reasoning')!;
    await expect(globex.responses.create({ model: MODEL, input: [reasoning as never] })).rejects.toMatchObject({ status: 400 });
    // Still there for its owner.
    expect((await acme.responses.retrieve(created.id)).id).toBe(created.id);
  });
});
