// What a workbook writer could not carry as given (a date before 1900 in .xls, an error code BIFF8 lacks…):
// counted by kind with the first place, for the warning tools.md §2.9 asks for.

/** Where a cell is: its sheet, and the 1-based row and column. */
export interface Place {
  sheet?: string;
  row?: number;
  column?: number;
}

/** A kind of change, how many cells it concerned, and the first of them. */
export interface Changed {
  kind: string;
  count: number;
  first: Place;
}

/** Counts changes by kind, keeping the first place of each. */
export class ChangeLog {
  private readonly byKind = new Map<string, Changed>();
  note(kind: string, place: () => Place): void {
    const c = this.byKind.get(kind);
    if (c) c.count++;
    else this.byKind.set(kind, { kind, count: 1, first: place() });
  }
  list(): Changed[] {
    return [...this.byKind.values()];
  }
}
