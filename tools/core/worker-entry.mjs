// Worker-thread bootstrap. On Node 20 a worker does not reliably get tsx's loader hooks from the
// inherited `--import tsx` before its first import, so it registers them itself, then loads the job code.
import { register } from 'tsx/esm/api';

register();
const { default: runJob } = await import('./worker.ts');
export default runJob;
