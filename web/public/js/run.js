// @ts-check
// One run over the public REST API: a multipart POST to /api/v1/tools/<tool>/run, through XMLHttpRequest
// because fetch reports no upload progress. The answer is the RunResponse or the Error body, with the quota
// state from the RateLimit-* headers.

/**
 * @typedef {{ name: string, contentType: string, size: number, contentBase64: string }} ResultFile
 * @typedef {{ columns: string[], rows: unknown[][], totalRows: number, truncated: boolean, sheet: string | null }} Preview
 * @typedef {{ level: 'info' | 'warning' | 'error', text: string }} Message
 * @typedef {{ ok: true, tool: string, files: ResultFile[], preview: Preview | null, textPreview: string | null, messages: Message[] }} RunResponse
 * @typedef {{ ok: false, error: string, message: string, option: string | null }} ErrorBody
 * @typedef {{ limit: number, remaining: number, reset: number }} Rate
 * @typedef {{ status: number, body: RunResponse | ErrorBody | null, rate: Rate | null, blob: Blob | null, fileName: string | null, messages: Message[] }} RunAnswer
 */

/**
 * @param {string} toolId
 * @param {FormData} form
 * @param {{ apiKey?: string, download?: boolean, signal: AbortSignal, onUpload: (fraction: number) => void, onUploaded: () => void }} o
 * @returns {Promise<RunAnswer>}
 */
export function runTool(toolId, form, o) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/v1/tools/${encodeURIComponent(toolId)}/run${o.download ? '?download=true' : ''}`);
    xhr.responseType = 'blob';
    if (o.apiKey) xhr.setRequestHeader('Authorization', `Bearer ${o.apiKey}`);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) o.onUpload(e.loaded / e.total);
    };
    xhr.upload.onload = () => o.onUploaded();
    xhr.onerror = () => reject(new Error('network'));
    xhr.onabort = () => reject(new DOMException('cancelled', 'AbortError'));
    xhr.onload = async () => {
      const blob = /** @type {Blob} */ (xhr.response);
      // A download's answer is the file itself (a JSON result too); anything else is a RunResponse or an Error body.
      const file = o.download === true && xhr.status === 200;
      const body = file ? null : await blob.text().then((s) => JSON.parse(s)).catch(() => null);
      resolve({
        status: xhr.status,
        body,
        rate: rateOf(xhr),
        blob: file ? blob : null,
        fileName: file ? fileNameOf(xhr.getResponseHeader('Content-Disposition')) : null,
        messages: file ? messagesOf(xhr.getResponseHeader('X-Tool-Messages')) : [],
      });
    };
    o.signal.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}

/** @param {XMLHttpRequest} xhr @returns {Rate | null} */
function rateOf(xhr) {
  const n = (/** @type {string} */ name) => Number(xhr.getResponseHeader(name) ?? NaN);
  const rate = { limit: n('RateLimit-Limit'), remaining: n('RateLimit-Remaining'), reset: n('RateLimit-Reset') };
  return Number.isFinite(rate.limit) && Number.isFinite(rate.remaining) && Number.isFinite(rate.reset) ? rate : null;
}

/** The UTF-8 file name of a Content-Disposition (`filename*`), else its ASCII one. @param {string | null} cd */
function fileNameOf(cd) {
  if (!cd) return null;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(cd);
  if (star) {
    try {
      return decodeURIComponent(star[1]);
    } catch {
      // fall back to the plain name
    }
  }
  return /filename="([^"]*)"/i.exec(cd)?.[1] ?? null;
}

/** The messages a download carries in its X-Tool-Messages header (JSON), or none. @param {string | null} header */
function messagesOf(header) {
  try {
    const list = header ? JSON.parse(header) : [];
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}
