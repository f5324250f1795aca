import OpenAI from 'openai';
import { SimServer } from '../../src/engine/simulated/sim-server';
import { startTestApp, type TestApp } from '../support/app';
import { deleteKeys, testPrefix } from '../support/redis';
import { eventProblems, responseProblems } from '../support/schemas';

// The same API over a chat-completions engine (ENGINE=chat): models other than gpt-oss.
let sim: SimServer;
let app: TestApp;
let client: OpenAI;
const prefix = testPrefix('chat');
const MODEL = 'gpt-oss-simulated';

beforeAll(async () => {
  sim = new SimServer({ port: 0 });
  const url = await sim.listen();
  app = await startTestApp({ KEY_PREFIX: prefix, ENGINE: 'chat', ENGINE_URL: url });
  client = new OpenAI({ apiKey: 'unused', baseURL: `${app.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await app.close();
  await sim.close();
  await deleteKeys(prefix);
});

const tool = { type: 'function' as const, name: 'lookup', description: 'Look a word up.', parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] }, strict: false };

describe('Responses over a chat-completions engine', () => {
  it('maps reasoning_content to a reasoning item and content to a message', async () => {
    const response = await client.responses.create({ model: MODEL, input: 'Hello chat engine', prompt_cache_key: 'chat-cache' });
    expect(responseProblems(response)).toEqual([]);
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(response.output_text).toContain('Hello chat engine');
  });

  it('streams valid events and returns logprobs when asked', async () => {
    const stream = client.responses.stream({ model: MODEL, input: 'Count to three', include: ['message.output_text.logprobs'], top_logprobs: 2 });
    for await (const event of stream) expect([event.type, eventProblems(event)]).toEqual([event.type, []]);
    const final = await stream.finalResponse();
    const message = final.output.find((item) => item.type === 'message') as OpenAI.Responses.ResponseOutputMessage;
    const part = message.content[0] as OpenAI.Responses.ResponseOutputText;
    expect(part.logprobs!.length).toBeGreaterThan(0);
    expect(part.logprobs![0]).toMatchObject({ token: expect.any(String), logprob: expect.any(Number), top_logprobs: expect.any(Array) });
  });

  it("refuses truncation 'auto', which needs a tokenizer a chat engine does not expose", async () => {
    await expect(client.responses.create({ model: MODEL, input: 'x', truncation: 'auto' })).rejects.toMatchObject({
      status: 400,
      error: { code: 'unsupported_value', param: 'truncation' },
    });
  });

  it('maps tool_calls to function_call items and round-trips the output', async () => {
    const call = await client.responses.create({ model: MODEL, input: 'use lookup for "serendipity"', tools: [tool], tool_choice: 'required' });
    expect(responseProblems(call)).toEqual([]);
    const fc = call.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(fc).toMatchObject({ name: 'lookup', status: 'completed' });
    const answer = await client.responses.create({
      model: MODEL,
      previous_response_id: call.id,
      input: [{ type: 'function_call_output', call_id: fc.call_id, output: 'a happy accident' }],
    });
    expect(answer.output_text).toContain('a happy accident');
  });
});
