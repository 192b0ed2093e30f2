// A server started without its V8 flags (v8-flags.ts) replaces itself with a process that has them, before the
// rest of it loads: `npm start`, `spreadsheet-tools serve`, the container and a bare `node --import tsx
// mcp/main.ts` alike. process.execve keeps the pid, stdio, arguments and environment.
import { missingFlags } from './v8-flags.ts';

const missing = missingFlags(process.execArgv);
// Where process.execve refuses (Windows, IBM i), the server runs without the flags, and says so.
if (missing.length > 0 && typeof process.execve === 'function') {
  try {
    process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)], process.env);
  } catch (err) {
    console.warn(`spreadsheet-tools: running without ${missing.join(' ')} (${(err as Error).message})`);
  }
}
