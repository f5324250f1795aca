import { aRequest } from '../../test/support/fixtures';
import { buildChatPrompt } from './chat-prompt';

describe('buildChatPrompt', () => {
  it('puts instructions first, replays every item in order, and groups consecutive calls', () => {
    const request = aRequest({
      instructions: 'Be brief.',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'weather in two cities' }] },
        { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'two calls' }] },
        { type: 'function_call', call_id: 'a', name: 'w', arguments: '{"c":"Oslo"}' },
        { type: 'function_call', call_id: 'b', name: 'w', arguments: '{"c":"Rome"}' },
        { type: 'function_call_output', call_id: 'a', output: '3C' },
        { type: 'function_call_output', call_id: 'b', output: '20C' },
      ],
    });
    const { messages, conversation } = buildChatPrompt(request, []);
    expect(messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(conversation).toEqual([
      { role: 'user', content: 'weather in two cities' },
      {
        role: 'assistant',
        content: null,
        reasoning: 'two calls',
        toolCalls: [
          { id: 'a', name: 'w', arguments: '{"c":"Oslo"}' },
          { id: 'b', name: 'w', arguments: '{"c":"Rome"}' },
        ],
      },
      { role: 'tool', toolCallId: 'a', content: '3C' },
      { role: 'tool', toolCallId: 'b', content: '20C' },
    ]);
  });

  it('matches outputs to calls from the history and refuses unknown ones', () => {
    const history = [{ role: 'assistant' as const, content: null, toolCalls: [{ id: 'h1', name: 'w', arguments: '{}' }] }];
    const ok = buildChatPrompt(aRequest({ input: [{ type: 'function_call_output', call_id: 'h1', output: 'r' }] }), history);
    expect(ok.conversation.at(-1)).toEqual({ role: 'tool', toolCallId: 'h1', content: 'r' });
    expect(() => buildChatPrompt(aRequest({ input: [{ type: 'function_call_output', call_id: 'zz', output: 'r' }] }), history)).toThrow(/call_id 'zz'/);
  });
});
