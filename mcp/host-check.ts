// Host and Origin checks (decisions.md): on a loopback bind the Host check is on by default, against
// DNS rebinding; on a public bind both allow any unless ALLOWED_HOSTS / ALLOWED_ORIGINS say otherwise.
import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../tools/core/config.ts';

const LOOPBACK_BIND = /^(127\.|localhost$|::1$|\[::1\]$)/;
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

function hostName(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
}

export function hostCheck(config: Config) {
  const hosts = config.ALLOWED_HOSTS.length ? config.ALLOWED_HOSTS.map((h) => h.toLowerCase()) : LOOPBACK_BIND.test(config.HOST) ? LOOPBACK_NAMES : null;
  const origins = config.ALLOWED_ORIGINS.length ? config.ALLOWED_ORIGINS : null;
  return function checkHostAndOrigin(req: Request, res: Response, next: NextFunction) {
    const host = (req.headers.host ?? '').toLowerCase();
    if (hosts && !hosts.includes(host) && !hosts.includes(hostName(host))) {
      res.status(403).json({ ok: false, error: 'forbidden_host', message: 'Host not allowed', option: null });
      return;
    }
    const origin = req.headers.origin;
    if (origins && origin !== undefined && !origins.includes(origin)) {
      res.status(403).json({ ok: false, error: 'forbidden_origin', message: 'Origin not allowed', option: null });
      return;
    }
    next();
  };
}
