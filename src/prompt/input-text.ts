import type { InputContent, InputTextContent } from '../generation/types/items';

/** The plain text of message content parts (engines here are text-only). */
export function contentText(parts: readonly InputContent[]): string {
  let text = '';
  for (const part of parts) text += part.type === 'refusal' ? part.refusal : part.text;
  return text;
}

/** A function_call_output's output as text. */
export function outputText(output: string | readonly InputTextContent[]): string {
  return typeof output === 'string' ? output : output.map((part) => part.text).join('');
}
