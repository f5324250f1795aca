import { eventProblems, responseProblems } from '../../test/support/schemas';
import { OutputEmitter } from './output-emitter';
import { aRun } from '../../test/support/fixtures';
import { ResponseAccumulator } from './response-accumulator';
import type { ResponseRequest } from './response-request';
import type { ResponseRun } from './response-run';
import type { ResponseStreamEvent } from './types/events';
import type { ResponseUsage } from './types/response';

function newRun(overrides: Partial<ResponseRequest> = {}): ResponseRun {
  return aRun({ responseId: `resp_${'ab'.repeat(24)}`, createdAt: 1_700_000_000 }, { stream: true, ...overrides });
}

const usage: ResponseUsage = {
  input_tokens: 10,
  input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
  output_tokens: 5,
  output_tokens_details: { reasoning_tokens: 2 },
  total_tokens: 15,
};

function fold(events: ResponseStreamEvent[]): ResponseAccumulator {
  const accumulator = new ResponseAccumulator();
  for (const event of events) accumulator.apply(event);
  return accumulator;
}

describe('OutputEmitter', () => {
  it('emits reasoning then a message in the contract order, every event valid under both specs', () => {
    const emitter = new OutputEmitter(newRun());
    const events = [
      ...emitter.start(),
      ...emitter.beginItem('reasoning'),
      emitter.delta('The user '),
      emitter.delta('says hi.'),
      ...emitter.beginItem('message'),
      emitter.delta('Hello'),
      emitter.delta('!'),
      ...emitter.finish({ status: 'completed' }, usage),
    ];
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
      'response.reasoning_text.delta',
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    for (const event of events) expect([event.type, eventProblems(event)]).toEqual([event.type, []]);

    const final = events[events.length - 1] as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    expect(responseProblems(final.response)).toEqual([]);
    expect(final.response.output).toEqual([
      { type: 'reasoning', id: expect.stringMatching(/^rs_[0-9a-f]{48}$/), summary: [], content: [{ type: 'reasoning_text', text: 'The user says hi.' }], status: 'completed' },
      {
        type: 'message',
        id: expect.stringMatching(/^msg_[0-9a-f]{48}$/),
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Hello!', annotations: [], logprobs: [] }],
      },
    ]);
    expect(final.response).toMatchObject({ status: 'completed', usage, error: null, incomplete_details: null });
    expect(final.response.completed_at).toEqual(expect.any(Number));
    // The final response is the fold of the events, and the emitter's own view agrees.
    expect(fold(events.slice(0, -1)).response.output).toEqual(final.response.output);
    expect(emitter.response).toEqual(final.response);
  });

  it('emits a function call with a call_id and its arguments', () => {
    const emitter = new OutputEmitter(newRun({ tools: [{ type: 'function', name: 'get_weather', description: null, parameters: null, strict: false }] }));
    const events = [...emitter.start(), ...emitter.beginItem('function_call', { name: 'get_weather' }), emitter.delta('{"city":'), emitter.delta('"Paris"}'), ...emitter.finish({ status: 'completed' }, usage)];
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    for (const event of events) expect([event.type, eventProblems(event)]).toEqual([event.type, []]);
    const item = emitter.response.output[0]!;
    expect(item).toEqual({
      type: 'function_call',
      id: expect.stringMatching(/^fc_/),
      call_id: expect.stringMatching(/^call_/),
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
      status: 'completed',
    });
  });

  it('closes a cut-off item as incomplete and ends with response.incomplete', () => {
    const emitter = new OutputEmitter(newRun({ maxOutputTokens: 16 }));
    const events = [...emitter.start(), ...emitter.beginItem('message'), emitter.delta('Once upon'), ...emitter.finish({ status: 'incomplete', reason: 'max_output_tokens' }, usage)];
    const last = events[events.length - 1]!;
    expect(last.type).toBe('response.incomplete');
    for (const event of events) expect([event.type, eventProblems(event)]).toEqual([event.type, []]);
    expect(emitter.response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, completed_at: null });
    expect(emitter.response.output[0]).toMatchObject({ status: 'incomplete', content: [{ text: 'Once upon' }] });
    expect(responseProblems(emitter.response)).toEqual([]);
  });

  it('announces a failure with an error event, then response.failed', () => {
    const emitter = new OutputEmitter(newRun());
    const events = [...emitter.start(), ...emitter.finish({ status: 'failed', error: { code: 'server_error', message: 'engine went away' } }, null)];
    expect(events.slice(-2).map((e) => e.type)).toEqual(['error', 'response.failed']);
    const error = events[events.length - 2]!;
    expect(error).toEqual({
      type: 'error',
      sequence_number: 2,
      code: 'server_error',
      message: 'engine went away',
      param: null,
      error: { type: 'server_error', code: 'server_error', message: 'engine went away', param: null },
    });
    for (const event of events) expect([event.type, eventProblems(event)]).toEqual([event.type, []]);
    expect(emitter.response).toMatchObject({ status: 'failed', error: { code: 'server_error', message: 'engine went away' } });
  });

  it('derives the same item ids for the same response (a retried run does not duplicate them)', () => {
    const ids = (): string[] => {
      const emitter = new OutputEmitter(newRun());
      emitter.start();
      emitter.beginItem('reasoning');
      emitter.beginItem('message');
      emitter.finish({ status: 'completed' }, usage);
      return emitter.response.output.map((item) => item.id);
    };
    expect(ids()).toEqual(ids());
    expect(new Set(ids()).size).toBe(2);
  });
});
