// @ts-check
// The API calls that do what the Run button does: curl over REST (multipart, saving the result) and the
// arguments of an MCP tools/call. They are built from the same values the page sends.
import { t } from './i18n.js';

/** A shell word in single quotes. @param {string} s */
const sh = (s) => `'${s.replaceAll("'", `'\\''`)}'`;

/** A file name as curl's -F reads it: quoted when it holds the characters curl splits on. @param {string} name */
const curlName = (name) => (/[;,"\\]/.test(name) ? `"${name.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"` : name);

/**
 * @typedef {Array<[string, string]>} MoreFiles further files as [field, file name] (merge-by-key's `lookup-file`)
 */

/**
 * @param {{ origin: string, toolId: string, field: 'file' | 'files', fileNames: string[], more?: MoreFiles, options: Array<[string, unknown]>, withKey: boolean }} c
 */
export function curlCommand(c) {
  const lines = [`curl -sS -OJ ${sh(`${c.origin}/api/v1/tools/${c.toolId}/run?download=true`)}`];
  if (c.withKey) lines.push(`-H "Authorization: Bearer $API_KEY"`);
  const names = c.fileNames.length ? c.fileNames : [c.field === 'files' ? 'a.xlsx' : 'data.xlsx'];
  for (const n of names) lines.push(`-F ${sh(`${c.field}=@${curlName(n)}`)}`);
  for (const [field, n] of c.more ?? []) lines.push(`-F ${sh(`${field}=@${curlName(n)}`)}`);
  for (const [k, v] of c.options) lines.push(`-F ${sh(`${k}=${String(v)}`)}`);
  return lines.join(' \\\n  ');
}

/**
 * @param {{ toolId: string, field: 'file' | 'files', fileNames: string[], more?: MoreFiles, options: Array<[string, unknown]> }} c
 */
export function mcpArguments(c) {
  const names = c.fileNames.length ? c.fileNames : [c.field === 'files' ? 'a.xlsx' : 'data.xlsx'];
  const fileObject = (/** @type {string} */ name) => ({ name, contentBase64: t('web.base64', { name }) });
  /** @type {Record<string, unknown>} */
  const args = { [c.field]: c.field === 'files' ? names.map(fileObject) : fileObject(names[0]) };
  for (const [field, n] of c.more ?? []) args[field] = fileObject(n);
  for (const [k, v] of c.options) args[k] = v;
  return JSON.stringify({ name: c.toolId, arguments: args }, null, 2);
}
