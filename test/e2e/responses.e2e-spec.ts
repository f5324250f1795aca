import OpenAI from 'openai';
import { eventProblems, responseProblems } from '../support/schemas';
import { startGateway, type Gateway } from '../support/gateway';

let gw: Gateway;
let client: OpenAI;
const MODEL = 'gpt-oss-simulated';

beforeAll(async () => {
  gw = await startGateway({}, 'responses');
  client = gw.client();
});
afterAll(async () => {
  await gw.close();
});

function expectValid(response: unknown): void {
  expect(responseProblems(response)).toEqual([]);
}

async function collect(stream: AsyncIterable<{ type: string; sequence_number: number }>): Promise<Array<{ type: string; sequence_number: number }>> {
  const events = [];
  for await (const event of stream) {
    expect([event.type, eventProblems(event)]).toEqual([event.type, []]);
    events.push(event);
  }
  return events;
}

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Get the weather for a city.',
  parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

describe('POST /v1/responses with the openai SDK', () => {
  it('creates a response: reasoning, then a message answering the user', async () => {
    const response = await client.responses.create({ model: MODEL, input: 'What is the capital of France?' });
    expectValid(response);
    expect(response.status).toBe('completed');
    expect(response.id).toMatch(/^resp_[0-9a-f]{48}$/);
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(response.output_text).toContain('What is the capital of France?');
    expect(response.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(response.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
  });

  it('echoes every setting, normalised', async () => {
    const response = await client.responses.create({
      model: MODEL,
      input: 'hi',
      instructions: 'Be brief.',
      temperature: 0.5,
      top_p: 0.9,
      metadata: { team: 'a' },
      reasoning: { effort: 'low', summary: 'auto' },
      max_output_tokens: 500,
      safety_identifier: 'user-1',
      prompt_cache_key: 'k1',
      user: 'legacy-user',
    });
    expectValid(response);
    expect(response).toMatchObject({
      instructions: 'Be brief.',
      temperature: 0.5,
      top_p: 0.9,
      metadata: { team: 'a' },
      reasoning: { effort: 'low', summary: 'auto' },
      max_output_tokens: 500,
      safety_identifier: 'user-1',
      prompt_cache_key: 'k1',
      user: 'legacy-user',
      tool_choice: 'auto',
      truncation: 'disabled',
      store: true,
      background: false,
      parallel_tool_calls: true,
      text: { format: { type: 'text' } },
    });
  });

  it('streams the exact event taxonomy, numbered from 0, and the final response is the fold', async () => {
    const stream = client.responses.stream({ model: MODEL, input: 'Tell me a story' });
    const events = await collect(stream);
    const final = await stream.finalResponse();
    expectValid(final);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('response.created');
    expect(types[1]).toBe('response.in_progress');
    expect(types[types.length - 1]).toBe('response.completed');
    expect(types).toEqual(
      expect.arrayContaining([
        'response.output_item.added',
        'response.content_part.added',
        'response.reasoning_text.delta',
        'response.reasoning_text.done',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
      ]),
    );
    const completed = events[events.length - 1] as unknown as { response: OpenAI.Responses.Response };
    // The SDK's accumulator adds `parsed: null` to text parts; otherwise its fold equals ours.
    expect(JSON.parse(JSON.stringify(final.output, (key, value: unknown) => (key === 'parsed' ? undefined : value)))).toEqual(completed.response.output);
    // Retrieve returns the same object the stream ended with.
    const retrieved = await client.responses.retrieve(final.id);
    // (`output_text` is the SDK's own convenience field.)
    expect({ ...retrieved, output_text: undefined }).toEqual(completed.response);
  });

  it('retrieves and deletes a stored response', async () => {
    const created = await client.responses.create({ model: MODEL, input: 'remember me' });
    const retrieved = await client.responses.retrieve(created.id);
    expectValid(retrieved);
    expect(retrieved).toEqual(created);
    await client.responses.delete(created.id);
    await expect(client.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.responses.delete(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('does not keep store:false responses, and they cannot be chained', async () => {
    const response = await client.responses.create({ model: MODEL, input: 'ephemeral', store: false });
    expectValid(response);
    expect((response as unknown as { store: boolean }).store).toBe(false);
    await expect(client.responses.retrieve(response.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.responses.create({ model: MODEL, input: 'next', previous_response_id: response.id })).rejects.toMatchObject({
      status: 400,
      error: { code: 'previous_response_not_found', param: 'previous_response_id' },
    });
  });

  it('pages input items with after/limit/order, as the SDK auto-paginates', async () => {
    const input = Array.from({ length: 5 }, (_, i) => ({ role: 'user' as const, content: `message ${i}` }));
    const created = await client.responses.create({ model: MODEL, input });
    const firstPage = await client.responses.inputItems.list(created.id, { limit: 2, order: 'asc' });
    expect(firstPage.data.map((item) => (item as { content: Array<{ text: string }> }).content[0]!.text)).toEqual(['message 0', 'message 1']);
    expect(firstPage.has_more).toBe(true);
    const all: string[] = [];
    for await (const item of client.responses.inputItems.list(created.id, { limit: 2, order: 'asc' })) {
      all.push((item as { content: Array<{ text: string }> }).content[0]!.text);
    }
    expect(all).toEqual(input.map((m) => m.content));
    const desc = await client.responses.inputItems.list(created.id);
    expect(desc.data.map((item) => (item as { content: Array<{ text: string }> }).content[0]!.text)).toEqual(input.map((m) => m.content).reverse());
    for (const item of desc.data) expect(item).toMatchObject({ id: expect.stringMatching(/^msg_/), type: 'message', status: 'completed', role: 'user' });
  });

  it('chains over three turns with previous_response_id', async () => {
    const marker = `Ada-${Date.now()}`;
    const first = await client.responses.create({ model: MODEL, input: `My name is ${marker}.` });
    const second = await client.responses.create({ model: MODEL, input: 'What is my name?', previous_response_id: first.id });
    const third = await client.responses.create({ model: MODEL, input: 'And again?', previous_response_id: second.id });
    for (const response of [first, second, third]) expectValid(response);
    expect(third.previous_response_id).toBe(second.id);
    expect(third.output_text).toContain('And again?');
    // Each later prompt carried the first turn: the engine saw the marker in all three requests,
    // and the prompts grew turn by turn.
    const seen = (await (await fetch(`${gw.sim.url}/sim/requests?contains=${encodeURIComponent(marker)}`)).json()) as {
      data: Array<{ promptTokens: number }>;
    };
    expect(seen.data).toHaveLength(3);
    expect(seen.data[1]!.promptTokens).toBeGreaterThan(seen.data[0]!.promptTokens);
    expect(seen.data[2]!.promptTokens).toBeGreaterThan(seen.data[1]!.promptTokens);
    expect(third.usage!.input_tokens).toBe(seen.data[2]!.promptTokens);
  });

  it('round-trips a function call', async () => {
    const call = await client.responses.create({ model: MODEL, input: 'What is the weather in "Paris"? use get_weather', tools: [weatherTool] });
    expectValid(call);
    const fc = call.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(fc).toMatchObject({ name: 'get_weather', call_id: expect.stringMatching(/^call_/), status: 'completed' });
    expect(JSON.parse(fc.arguments)).toEqual({ city: expect.any(String) });
    expect(call.tools).toEqual([{ ...weatherTool }]);
    const answer = await client.responses.create({
      model: MODEL,
      previous_response_id: call.id,
      input: [{ type: 'function_call_output', call_id: fc.call_id, output: '{"temperature": 21, "sky": "clear"}' }],
      tools: [weatherTool],
    });
    expectValid(answer);
    expect(answer.output_text).toContain('temperature');
    await expect(
      client.responses.create({
        model: MODEL,
        previous_response_id: call.id,
        input: [{ type: 'function_call_output', call_id: 'call_unknown', output: 'x' }],
      }),
    ).rejects.toMatchObject({ status: 400, error: { param: 'input.0.call_id' } });
  });

  it('streams a function call with argument deltas', async () => {
    const stream = client.responses.stream({ model: MODEL, input: 'weather in "Oslo" please', tools: [weatherTool] });
    const events = await collect(stream);
    const final = await stream.finalResponse();
    expectValid(final);
    const types = events.map((e) => e.type);
    expect(types).toContain('response.function_call_arguments.delta');
    expect(types).toContain('response.function_call_arguments.done');
    expect(final.output.some((item) => item.type === 'function_call')).toBe(true);
  });

  it('stops at max_output_tokens with status incomplete', async () => {
    const response = await client.responses.create({ model: MODEL, input: 'Write a long essay about the sea', max_output_tokens: 16 });
    expectValid(response);
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.usage!.output_tokens).toBeLessThanOrEqual(16);
    const stream = client.responses.stream({ model: MODEL, input: 'Write a long essay about the sky', max_output_tokens: 16 });
    const events = await collect(stream);
    expect(events[events.length - 1]!.type).toBe('response.incomplete');
  });

  it('round-trips encrypted reasoning for stateless (store:false) clients', async () => {
    const first = await client.responses.create({ model: MODEL, input: 'Think about cats', store: false, include: ['reasoning.encrypted_content'] });
    expectValid(first);
    const reasoning = first.output.find((item) => item.type === 'reasoning') as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.encrypted_content).toMatch(/^rg1\./);
    const second = await client.responses.create({
      model: MODEL,
      store: false,
      input: [{ role: 'user', content: 'Think about cats' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'and dogs?' }],
    });
    expectValid(second);
    expect(second.output_text).toContain('and dogs?');
    const forged = { ...reasoning, encrypted_content: `${reasoning.encrypted_content!.slice(0, -4)}AAAA` };
    await expect(client.responses.create({ model: MODEL, input: [forged as OpenAI.Responses.ResponseInputItem] })).rejects.toMatchObject({
      status: 400,
      error: { param: 'input.0.encrypted_content' },
    });
  });

  it('passes text.format json_schema to the engine and echoes it', async () => {
    const format = {
      type: 'json_schema' as const,
      name: 'city',
      schema: { type: 'object', properties: { name: { type: 'string' }, population: { type: 'integer' } }, required: ['name', 'population'], additionalProperties: false },
      strict: true,
    };
    const response = await client.responses.create({ model: MODEL, input: 'Describe Paris', text: { format } });
    expectValid(response);
    expect(response.text?.format).toEqual({ ...format, description: null });
    expect(JSON.parse(response.output_text)).toEqual({ name: expect.any(String), population: expect.any(Number) });
  });

  it('rejects an unknown model with model_not_found', async () => {
    await expect(client.responses.create({ model: 'gpt-5', input: 'x' })).rejects.toMatchObject({ status: 404, error: { code: 'model_not_found', param: 'model' } });
  });

  it('counts input tokens exactly as the prompt the engine receives', async () => {
    const marker = `count-${Date.now()}`;
    const counted = await client.responses.inputTokens.count({ model: MODEL, input: marker, instructions: 'Be brief.' });
    expect(counted).toMatchObject({ object: 'response.input_tokens', input_tokens: expect.any(Number) });
    const created = await client.responses.create({ model: MODEL, input: marker, instructions: 'Be brief.' });
    expect(created.usage!.input_tokens).toBe(counted.input_tokens);
    await expect(client.responses.inputTokens.count({ model: MODEL, input: 'x', personality: 'pirate' } as never)).rejects.toMatchObject({ status: 400 });
  });

  it('lists the served model', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual([MODEL]);
  });
});
