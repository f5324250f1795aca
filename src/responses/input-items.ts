import { derivedId, type ItemIdKind } from '../common/ids';
import type { InputItem, StoredInputItem } from '../generation/types/items';

const KIND: Record<Exclude<InputItem['type'], 'item_reference'>, ItemIdKind> = {
  message: 'msg',
  function_call: 'fc',
  function_call_output: 'fco',
  reasoning: 'rs',
};

/** The request's input items as stored and listed: each with an id and a status. */
export function toStoredInputItems(responseId: string, items: readonly InputItem[]): StoredInputItem[] {
  return items.map((item, index): StoredInputItem => {
    if (item.type === 'item_reference') throw new Error('item references must be resolved before storing');
    const id = item.id ?? derivedId(KIND[item.type], responseId, 'input', index);
    if (item.type === 'reasoning') return { ...item, id };
    return { ...item, id, status: item.status ?? 'completed' } as StoredInputItem;
  });
}

export interface ItemPage<T extends { id: string }> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** Cursor pagination over a small in-memory list (`after`/`before` are item ids). */
export function pageOf<T extends { id: string }>(
  items: readonly T[],
  query: { order: 'asc' | 'desc'; limit: number; after?: string; before?: string },
): ItemPage<T> | { unknownCursor: 'after' | 'before' } {
  let list = query.order === 'asc' ? [...items] : [...items].reverse();
  if (query.after !== undefined) {
    const at = list.findIndex((item) => item.id === query.after);
    if (at < 0) return { unknownCursor: 'after' };
    list = list.slice(at + 1);
  }
  if (query.before !== undefined) {
    const at = list.findIndex((item) => item.id === query.before);
    if (at < 0) return { unknownCursor: 'before' };
    list = list.slice(0, at);
  }
  const data = list.slice(0, query.limit);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: list.length > data.length,
  };
}
