// The client a quota counts, from the address a request came from. The text of an address is not the client:
// `2001:db8::1`, `2001:DB8::1`, its full form and `::ffff:10.0.0.1` beside `10.0.0.1` would be different
// subjects, a forwarded address may carry a port, and one IPv6 host holds a whole /64 (any of its 2^64
// addresses is as much its own as the first), so IPv6 clients are counted by their /64.
import ipaddr from 'ipaddr.js';
import { BoundedMap } from '../formats/index.ts';

// A dotted IPv4 address with no leading zeros is already in its one form: most clients, at no parsing cost.
const PLAIN_V4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
// Clients come back: an IPv6 address is parsed once (about 10 µs with ipaddr.js), then looked up.
const known = new BoundedMap<string, string>(10_000);

/** `[v6]:port`, `[v6]` and `v4:port` without the brackets and port; anything else as it is. */
function withoutPort(text: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d*)?$/.exec(text);
  if (bracketed) return bracketed[1];
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d*$/.exec(text);
  return v4 ? v4[1] : text;
}

/**
 * The canonical client of an address: dotted IPv4 (an IPv4-mapped IPv6 address is its IPv4 address), an IPv6
 * address as the lower-case /64 it belongs to (`2001:db8:0:0::/64`), and any other text (an address a proxy
 * wrote in a form we do not read) lower-cased and bounded, so it still counts as one client.
 */
export function clientOf(address: string): string {
  if (PLAIN_V4.test(address)) return address;
  return known.get(address) ?? known.set(address, canonical(address));
}

function canonical(address: string): string {
  const text = withoutPort(address.trim());
  // Each check is asked only of text that may pass it: a refused check costs ipaddr.js tens of µs.
  if (/^[\d.]+$/.test(text)) {
    if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text).toString();
  } else if (/^[\da-f:.]+(?:%[\w.-]+)?$/i.test(text) && ipaddr.IPv6.isValid(text)) {
    const ip = ipaddr.IPv6.parse(text);
    if (ip.isIPv4MappedAddress()) return ip.toIPv4Address().toString();
    return `${ip.parts.slice(0, 4).map((p) => p.toString(16)).join(':')}::/64`;
  }
  return text.toLowerCase().slice(0, 100);
}
