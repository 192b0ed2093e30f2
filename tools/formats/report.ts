// How the sheet layer tells the caller about things worth a message: the tool passes `ctx.message`.
import type { MessageLevel } from '../core/define.ts';

/** Same shape as ToolContext.message: a `messages.<key>` text with its placeholders. */
export type Report = (level: MessageLevel, key: string, params?: Record<string, string | number>) => void;

export const silent: Report = () => {};

/** A list for a message, each item in double quotes, clipped so that one message stays short: `"a", "b" (+7)`. */
export function listText(items: string[], max = 8): string {
  const shown = items.slice(0, max).map((x) => `"${x.length > 60 ? x.slice(0, 57) + '...' : x}"`);
  return items.length > max ? `${shown.join(', ')} (+${items.length - max})` : shown.join(', ');
}
