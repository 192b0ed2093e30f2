// Worker-thread bootstrap of the fuzz runner: Node 20 workers do not reliably inherit tsx's loader hooks,
// so the worker registers them itself, then runs its range of cases.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./fuzz-run.ts');
await main();
