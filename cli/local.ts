// The kernel for runs on this machine: the service's configuration from the environment (its limits and
// their variables), without what only a shared server needs. No quota binds one person's own runs, no API
// key is ever read, no Redis is joined; a result of any size up to MAX_RESULT_MB is handed over whole.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveLang, type Lang } from '../locales/index.ts';
import { CONFIG_VARIABLES, parseConfig, type Config } from '../tools/core/config.ts';
import { createKernel, type Kernel } from '../tools/core/kernel.ts';

/** The largest hourly budget the configuration accepts: no person's runs reach it. */
const UNBOUNDED = '1000000000';

export function localConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { REDIS_URL: _redis, ADMIN_TOKEN: _admin, ...rest } = env;
  return parseConfig({
    ...rest,
    ANON_RUNS_PER_HOUR: UNBOUNDED,
    MAX_INLINE_RESULT_MB: rest.MAX_RESULT_MB ?? CONFIG_VARIABLES.MAX_RESULT_MB.default,
    // A folder that is never created: the key store finds no key file and writes none (no key is made here).
    DATA_DIR: join(tmpdir(), `spreadsheet-tools-local-${process.pid}-no-keys`),
  });
}

export function localKernel(env: NodeJS.ProcessEnv = process.env): Kernel {
  return createKernel(localConfig(env));
}

/** The caller of local runs: one person, no key. */
export const LOCAL_CALLER = { ip: 'local' } as const;

/** The language of the command's own texts: `--language`, else the locale of the environment, else Spanish. */
export function langOf(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Lang {
  const i = argv.findIndex((a) => a === '--language' || a.startsWith('--language='));
  if (i >= 0) {
    const value = argv[i].includes('=') ? argv[i].slice(argv[i].indexOf('=') + 1) : argv[i + 1];
    if (value === 'es' || value === 'en') return value;
  }
  const locale = (env.LC_ALL || env.LC_MESSAGES || env.LANG || '').slice(0, 2).toLowerCase();
  return resolveLang(locale);
}
