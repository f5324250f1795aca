import { aRequest } from '../../test/support/fixtures';
import { ApiError } from '../common/errors/api-error';
import type { HarmonyMessage } from '../harmony';
import { buildHarmonyPrompt, dropFinishedReasoning } from './harmony-prompt';

const text = (t: string) => [{ type: 'text' as const, text: t }];
const user = (t: string): HarmonyMessage => ({ role: 'user', content: text(t) });
const analysis = (t: string): HarmonyMessage => ({ role: 'assistant', channel: 'analysis', content: text(t) });
const final = (t: string): HarmonyMessage => ({ role: 'assistant', channel: 'final', content: text(t) });
const call = (name: string, args: string): HarmonyMessage => ({ role: 'assistant', channel: 'commentary', recipient: `functions.${name}`, content_type: '<|constrain|>json', content: text(args) });
const message = (role: 'user' | 'system' | 'developer', t: string) => ({ type: 'message' as const, role, content: [{ type: 'input_text' as const, text: t }] });

describe('buildHarmonyPrompt', () => {
  it('renders system and developer content from the request: effort, date, instructions, function tools', () => {
    const request = aRequest({
      input: [message('user', 'hi')],
      instructions: 'Be brief.',
      reasoningEffort: 'high',
      tools: [{ type: 'function', name: 'get_weather', description: 'Weather.', parameters: { type: 'object', properties: {} }, strict: false }],
    });
    const { messages, conversation, date } = buildHarmonyPrompt(request, null, '2026-11-23');
    expect(date).toBe('2026-11-23');
    expect(messages[0]).toMatchObject({ role: 'system', content: [{ type: 'system_content', reasoning_effort: 'high', conversation_start_date: '2026-11-23' }] });
    expect(messages[1]).toMatchObject({
      role: 'developer',
      content: [{ type: 'developer_content', instructions: 'Be brief.', tools: { functions: { tools: [{ name: 'get_weather', description: 'Weather.' }] } } }],
    });
    expect(conversation).toEqual([user('hi')]);
  });

  it('leaves tools out with tool_choice none, and system/developer input messages join the instructions', () => {
    const request = aRequest({
      input: [message('system', 'Speak French.'), message('user', 'hi')],
      instructions: 'Be brief.',
      toolChoice: 'none',
      tools: [{ type: 'function', name: 'f', description: null, parameters: null, strict: false }],
    });
    const { messages } = buildHarmonyPrompt(request, null, '2026-11-23');
    expect(messages[1]).toMatchObject({ content: [{ instructions: 'Be brief.\n\nSpeak French.', tools: null }] });
  });

  it("applies the new request's settings to a chain and keeps the chain's pinned date", () => {
    const history = { messages: [user('first'), analysis('thinking'), final('answer')], calls: {}, date: '2026-01-01' };
    const request = aRequest({ input: [message('user', 'second')], instructions: 'New rules.', reasoningEffort: 'low' });
    const { messages, date } = buildHarmonyPrompt(request, history, '2026-11-23');
    expect(date).toBe('2026-01-01');
    expect(messages[0]).toMatchObject({ content: [{ reasoning_effort: 'low', conversation_start_date: '2026-01-01' }] });
    expect(messages[1]).toMatchObject({ content: [{ instructions: 'New rules.' }] });
  });

  it('drops the reasoning of a finished turn but keeps it before a pending function call', () => {
    const finished = { messages: [user('q1'), analysis('r1'), final('a1')], calls: {}, date: 'd' };
    expect(buildHarmonyPrompt(aRequest({ input: [message('user', 'q2')] }), finished, 'd').conversation).toEqual([user('q1'), final('a1'), user('q2')]);

    const pending = { messages: [user('q1'), analysis('r1'), call('get_weather', '{"city":"Oslo"}')], calls: { call_1: 'get_weather' }, date: 'd' };
    const request = aRequest({ input: [{ type: 'function_call_output', call_id: 'call_1', output: '{"temp":3}' }] });
    const { conversation } = buildHarmonyPrompt(request, pending, 'd');
    expect(conversation).toEqual([
      user('q1'),
      analysis('r1'),
      call('get_weather', '{"city":"Oslo"}'),
      { role: 'tool', name: 'functions.get_weather', recipient: 'assistant', channel: 'commentary', content: text('{"temp":3}') },
    ]);
  });

  it('matches a function_call_output to a call in the same input, and refuses an unknown call_id', () => {
    const request = aRequest({
      input: [
        { type: 'function_call', call_id: 'c9', name: 'lookup', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c9', output: 'found' },
      ],
    });
    const { conversation, calls } = buildHarmonyPrompt(request, null, 'd');
    expect(calls).toEqual({ c9: 'lookup' });
    expect(conversation[1]).toMatchObject({ role: 'tool', name: 'functions.lookup' });
    const unknown = aRequest({ input: [{ type: 'function_call_output', call_id: 'nope', output: 'x' }] });
    expect(() => buildHarmonyPrompt(unknown, null, 'd')).toThrow(ApiError);
    try {
      buildHarmonyPrompt(unknown, null, 'd');
    } catch (error) {
      expect((error as ApiError).param).toBe('input.0.call_id');
    }
  });

  it('replays reasoning items as analysis and describes a json_schema format in the developer message', () => {
    const request = aRequest({
      input: [message('user', 'q'), { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'prior thought' }] }],
      textFormat: { type: 'json_schema', name: 'city', schema: { type: 'object' }, description: 'A city.', strict: true },
    });
    const { messages, conversation } = buildHarmonyPrompt(request, null, 'd');
    expect(conversation[1]).toEqual(analysis('prior thought'));
    expect(messages[1]).toMatchObject({ content: [{ response_format: { name: 'city', description: 'A city.', schema: { type: 'object' } } }] });
  });
});

describe('dropFinishedReasoning', () => {
  it('keeps analysis after the last final answer only', () => {
    const messages = [user('1'), analysis('a'), final('f1'), user('2'), analysis('b'), final('f2'), user('3'), analysis('c')];
    expect(dropFinishedReasoning(messages)).toEqual([user('1'), final('f1'), user('2'), final('f2'), user('3'), analysis('c')]);
  });
});
