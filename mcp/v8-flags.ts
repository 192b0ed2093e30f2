// The server's V8 flags. They configure the heap, which only the command line can (v8.setFlagsFromString comes
// after the heap is set up), so a server started without them replaces itself with a process that has them
// (relaunch.ts).
//
// Why a floor under the old generation: after a few seconds without requests, the main thread's collection
// (jobs.ts, RECLAIM_AFTER_MS) and V8's memory reducer set the heap's allocation limit just above what lives in
// it (mostly loaded code), and from then on a large file through the JSON door crossed it on every request:
// one or two full collections each, on the cores the job needs, for the rest of the server's life. The job
// processes have the same floor (jobs.ts). Unlike theirs, the server's memory reducer stays on: it is what
// gives the pages V8 pools after a burst back to the system, which the server's own collection does not.

/** The least the heap's allocation limit falls to (`--initial-old-space-size`). */
export const SERVER_INITIAL_OLD_SPACE_MB = 128;

export const SERVER_V8_FLAGS = [`--initial-old-space-size=${SERVER_INITIAL_OLD_SPACE_MB}`];

/** A flag's name as V8 reads it: `--initial_old_space_size=9` and `--initial-old-space-size` are one flag. */
const nameOf = (flag: string) => flag.replace(/^--?/, '').split('=')[0]!.replaceAll('_', '-');

/** The server flags this process's command line lacks; one the person starting it gave, with any value, is theirs. */
export function missingFlags(execArgv: readonly string[]): string[] {
  const given = new Set(execArgv.map(nameOf));
  return SERVER_V8_FLAGS.filter((f) => !given.has(nameOf(f)));
}
