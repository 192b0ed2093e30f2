// Host and Origin checks (decisions.md). On a loopback bind the Host check is on by default, against DNS
// rebinding, and so is the Origin check: a browser page of another origin can post to a local service without
// a preflight (a multipart form, a text/plain body), so on loopback only the service's own pages are
// accepted unless ALLOWED_ORIGINS says otherwise. On a public bind both allow any unless ALLOWED_HOSTS /
// ALLOWED_ORIGINS say otherwise. Requests without an Origin (every non-browser client) are never refused
// for it.
import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../tools/core/config.ts';
import { ToolError } from '../tools/core/errors.ts';
import { requestLang, sendError } from '../tools/core/http-answer.ts';

const LOOPBACK_BIND = /^(127\.|localhost$|::1$|\[::1\]$)/;
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

function hostName(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
}

/** `host[:port]` as a URL writes it (lower case, no default port), or null when it is no host. */
function urlHost(protocol: string, host: string): string | null {
  try {
    return new URL(`${protocol}//${host}`).host;
  } catch {
    return null;
  }
}

/** Whether `origin` is a page of this service as the request reached it (same host and port). */
function isOwnOrigin(origin: string, host: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return url.origin === origin.toLowerCase().replace(/\/$/, '') && url.host === urlHost(url.protocol, host);
}

export function hostCheck(config: Config) {
  const loopback = LOOPBACK_BIND.test(config.HOST);
  const hosts = config.ALLOWED_HOSTS.length ? config.ALLOWED_HOSTS.map((h) => h.toLowerCase()) : loopback ? LOOPBACK_NAMES : null;
  const origins = config.ALLOWED_ORIGINS.length ? config.ALLOWED_ORIGINS : null;
  return function checkHostAndOrigin(req: Request, res: Response, next: NextFunction) {
    const host = (req.headers.host ?? '').toLowerCase();
    if (hosts && !hosts.includes(host) && !hosts.includes(hostName(host))) {
      sendError(res, new ToolError('forbidden_host', { params: { host: host.slice(0, 200) } }), requestLang(req));
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && (origins ? !origins.includes(origin) : loopback && !isOwnOrigin(origin, host))) {
      sendError(res, new ToolError('forbidden_origin', { params: { origin: origin.slice(0, 200) } }), requestLang(req));
      return;
    }
    next();
  };
}
