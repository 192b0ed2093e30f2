// A real job in a piscina worker thread, as the job workers ran them until issue 13: Node 20 workers do not
// reliably inherit tsx's loader hooks, so the worker registers them before it loads the job module.
import { register } from 'tsx/esm/api';

register();
const { default: runJob } = await import('../../tools/core/worker.ts');
export default runJob;
