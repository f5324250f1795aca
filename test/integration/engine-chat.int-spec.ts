/**
 * The chat-completions engine against the simulated engine's HTTP server over real HTTP:
 * reasoning and content deltas, tool calls, tool results, logprobs, limits, abort, usage.
 */
import Ajv from 'ajv';
import { request as httpRequest } from 'undici';
import { ChatCompletionsEngine } from '../../src/engine/chat/chat-engine';
import type { ChatDelta, ChatRequest } from '../../src/engine/engine';
import { SimServer } from '../../src/engine/simulated/sim-server';

const CONTEXT = 8192;
let sim: SimServer;
let engine: ChatCompletionsEngine;
let url: string;

beforeAll(async () => {
  sim = new SimServer({ port: 0, contextLength: CONTEXT });
  url = await sim.listen();
  engine = new ChatCompletionsEngine({ url, firstTokenTimeoutMs: 5_000, idleTimeoutMs: 5_000 });
});

afterAll(async () => {
  await engine.close();
  await sim.close();
});

jest.setTimeout(15_000);

let markers = 0;
function marker(): string {
  return `CHAT-${process.pid}-${++markers}-${Date.now()}`;
}

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', minLength: 2 }, unit: { type: 'string', enum: ['c', 'f'] }, days: { type: 'integer', minimum: 1, maximum: 7 } },
    required: ['city', 'unit'],
    additionalProperties: false,
  },
};

interface Folded {
  deltas: ChatDelta[];
  content: string;
  reasoning: string;
  calls: { id?: string; name?: string; arguments: string }[];
  last: ChatDelta;
}

async function run(request: Omit<ChatRequest, 'signal'> & { signal?: AbortSignal }): Promise<Folded> {
  const deltas: ChatDelta[] = [];
  for await (const delta of engine.chat({ signal: new AbortController().signal, ...request })) deltas.push(delta);
  const calls: Folded['calls'] = [];
  for (const delta of deltas) {
    for (const call of delta.toolCalls ?? []) {
      const entry = (calls[call.index] ??= { arguments: '' });
      if (call.id) entry.id = call.id;
      if (call.name) entry.name = call.name;
      entry.arguments += call.argumentsDelta;
    }
  }
  return {
    deltas,
    content: deltas.map((d) => d.content ?? '').join(''),
    reasoning: deltas.map((d) => d.reasoning ?? '').join(''),
    calls,
    last: deltas.at(-1)!,
  };
}

describe('chat engine ↔ simulated engine over HTTP', () => {
  it('learns the model and context length', async () => {
    await expect(engine.modelId()).resolves.toBe('gpt-oss-simulated');
    await expect(engine.contextLength()).resolves.toBe(CONTEXT);
  });

  it('streams reasoning then content for a plain message, with usage on the last delta', async () => {
    const mark = marker();
    const result = await run({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: `Hi ${mark}` }] });
    expect(result.reasoning).toBe(`The user wrote: "Hi ${mark}". I will answer.`);
    expect(result.content).toBe(`You said: Hi ${mark}`);
    // Reasoning comes first: no content delta before the last reasoning delta.
    const firstContent = result.deltas.findIndex((d) => d.content);
    const lastReasoning = result.deltas.map((d) => Boolean(d.reasoning)).lastIndexOf(true);
    expect(lastReasoning).toBeLessThan(firstContent);
    expect(result.last.finishReason).toBe('stop');
    expect(result.last.usage?.completionTokens).toBeGreaterThan(5);
    expect(result.last.usage?.promptTokens).toBeGreaterThan(3);
    expect(result.deltas.filter((d) => d.finishReason)).toHaveLength(1);
  });

  it('calls an offered tool with arguments valid for its JSON schema', async () => {
    const result = await run({ messages: [{ role: 'user', content: `weather in "Bergen" ${marker()}` }], tools: [weatherTool], toolChoice: 'auto' });
    expect(result.calls).toHaveLength(1);
    const [call] = result.calls;
    expect(call!.name).toBe('get_weather');
    expect(call!.id).toMatch(/^call_/);
    const args: unknown = JSON.parse(call!.arguments);
    expect(args).toEqual({ city: 'Bergen', unit: 'c' });
    expect(new Ajv().validate(weatherTool.parameters, args)).toBe(true);
    expect(result.last.finishReason).toBe('tool_calls');
    expect(result.content).toBe('');
  });

  it('does not call a tool with tool_choice none', async () => {
    const result = await run({ messages: [{ role: 'user', content: `weather ${marker()}` }], tools: [weatherTool], toolChoice: 'none' });
    expect(result.calls).toHaveLength(0);
    expect(result.last.finishReason).toBe('stop');
  });

  it('answers a tool result with the tool output', async () => {
    const result = await run({
      messages: [
        { role: 'user', content: `weather in Bergen ${marker()}` },
        { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Bergen","unit":"c"}' }] },
        { role: 'tool', toolCallId: 'call_1', content: '{"temp":11}' },
      ],
      tools: [weatherTool],
    });
    expect(result.content).toBe('Result from get_weather: {"temp":11}');
    expect(result.calls).toHaveLength(0);
  });

  it('returns logprobs with the requested number of alternatives, matching the content', async () => {
    const result = await run({ messages: [{ role: 'user', content: `logprobs ${marker()}` }], topLogprobs: 2 });
    const logprobs = result.deltas.flatMap((d) => d.logprobs ?? []);
    expect(logprobs.map((l) => l.token).join('')).toBe(result.content);
    for (const entry of logprobs) {
      expect(entry.logprob).toBeLessThan(0);
      expect(entry.topLogprobs).toHaveLength(2);
      expect(entry.topLogprobs[0]!.token).toBe(entry.token);
    }
  });

  it('cuts at max_tokens with finish reason length', async () => {
    const result = await run({ messages: [{ role: 'user', content: `cut ${marker()}` }], maxTokens: 4 });
    expect(result.last).toMatchObject({ finishReason: 'length', usage: { completionTokens: 4 } });
  });

  it('answers JSON that fits a response_format schema', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' }, score: { type: 'number', maximum: 0.5 } }, required: ['answer', 'score'] };
    const result = await run({ messages: [{ role: 'user', content: `json ${marker()}` }], structuredOutput: { type: 'json_schema', name: 'r', schema } });
    expect(new Ajv().validate(schema, JSON.parse(result.content))).toBe(true);
  });

  it('maps a scripted harmony completion to reasoning, content and tool calls', async () => {
    const mark = marker();
    const res = await httpRequest(`${url}/sim/scripts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        match: mark,
        completion:
          '<|channel|>analysis<|message|>thinking<|end|><|start|>assistant<|channel|>commentary to=functions.lookup <|constrain|>json<|message|>{"q":1}<|call|>',
      }),
    });
    expect(res.statusCode).toBe(201);
    await res.body.dump();
    const result = await run({ messages: [{ role: 'user', content: mark }] });
    expect(result.reasoning).toBe('thinking');
    expect(result.calls).toEqual([{ id: expect.stringMatching(/^call_/), name: 'lookup', arguments: '{"q":1}' }]);
    expect(result.last.finishReason).toBe('tool_calls');
  });

  it('aborting stops the stream and the engine sees the connection close', async () => {
    const mark = marker();
    const res = await httpRequest(`${url}/sim/scripts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // (`loop` repeats completions on /v1/completions only; a long script does it here.)
      body: JSON.stringify({ match: mark, completion: `<|channel|>final<|message|>${'more and more '.repeat(300)}`, tokensPerSecond: 200 }),
    });
    await res.body.dump();
    const controller = new AbortController();
    const error = await (async () => {
      for await (const delta of engine.chat({ messages: [{ role: 'user', content: mark }], maxTokens: 3_000, signal: controller.signal })) {
        if (delta.content) controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'aborted' });
    const list = await httpRequest(`${url}/sim/requests?contains=${encodeURIComponent(mark)}&status=aborted&waitMs=3000`);
    const { data } = (await list.body.json()) as { data: { status: string }[] };
    expect(data).toEqual([expect.objectContaining({ status: 'aborted' })]);
  });

  it('a request beyond the context length → context_length_exceeded', async () => {
    const error = await run({ messages: [{ role: 'user', content: `big ${marker()}` }], maxTokens: CONTEXT }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'context_length_exceeded' });
  });
});
