// Messages: readers and writers report through the run's FormatContext (`message`); lists in them are clipped here.
import type { Report } from './model.ts';

export type { Report };

export const silent: Report = () => {};

/** A list for a message, each item in double quotes, clipped so that one message stays short: `"a", "b" (+7)`. */
export function listText(items: string[], max = 8): string {
  const shown = items.slice(0, max).map((x) => `"${x.length > 60 ? x.slice(0, 57) + '...' : x}"`);
  return items.length > max ? `${shown.join(', ')} (+${items.length - max})` : shown.join(', ');
}
