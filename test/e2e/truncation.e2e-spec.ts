import { startGateway, type Gateway } from '../support/gateway';

// A model with a small context, so a few turns overflow it.
let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway({}, 'trunc', { contextLength: 700 });
});
afterAll(async () => {
  await gw.close();
});

const MODEL = 'gpt-oss-simulated';
const long = (turn: number): string => `Turn ${turn}: ${'the quick brown fox jumps over the lazy dog '.repeat(12)}`;

describe('truncation', () => {
  it("'disabled' refuses a chain that outgrew the context; 'auto' drops the oldest turns", async () => {
    const client = gw.client();
    let previous: string | undefined;
    for (let turn = 1; turn <= 3; turn += 1) {
      const response = await client.responses.create({ model: MODEL, input: long(turn), truncation: 'auto', max_output_tokens: 64, ...(previous ? { previous_response_id: previous } : {}) });
      expect(response.usage!.input_tokens).toBeLessThan(700);
      previous = response.id;
    }
    await expect(client.responses.create({ model: MODEL, input: long(4), previous_response_id: previous })).rejects.toMatchObject({
      status: 400,
      error: { code: 'context_length_exceeded', param: 'input' },
    });
    const auto = await client.responses.create({ model: MODEL, input: long(4), previous_response_id: previous, truncation: 'auto', max_output_tokens: 64 });
    expect(auto.truncation).toBe('auto');
    expect(auto.usage!.input_tokens).toBeLessThan(700);
    // Still too long on its own: nothing left to drop.
    await expect(client.responses.create({ model: MODEL, input: long(5).repeat(8), truncation: 'auto' })).rejects.toMatchObject({ status: 400, error: { code: 'context_length_exceeded' } });
  });
});
