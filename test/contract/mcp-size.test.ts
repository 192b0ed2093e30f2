// The byte budget of tools/list (issue 20): an MCP client puts every tool definition into the model's context
// on every turn. Measured on the wire, as a client receives it, in both languages: a size, never a time.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { LANGS, type Lang } from '../../locales/index.ts';
import { budgetedOptions, LIST_BUDGET, listBytes, mcpToolList } from '../../mcp/tool-list.ts';
import { listTools } from '../../tools/core/registry.ts';
import { startServer, type TestServer } from '../helpers/http.ts';

let srv: TestServer;
before(async () => {
  srv = await startServer({}, { jobs: 'inline' });
});
after(() => srv.close());

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function listOverHttp(lang: Lang): Promise<Buffer> {
  const res = await fetch(`${srv.url}/mcp?lang=${lang}`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
  assert.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

test('mcp size: the budget adds up to 40 KB for the 35 tools and 156 options of the specification', () => {
  assert.ok(LIST_BUDGET.tools * LIST_BUDGET.perTool + LIST_BUDGET.options * LIST_BUDGET.perOption <= LIST_BUDGET.bytes);
  assert.ok(listTools().length <= LIST_BUDGET.tools, 'more tools than the specification: set a new budget');
});

for (const lang of LANGS) {
  test(`[${lang}] mcp size: tools/list stays within the allowance of the tools it lists and within 40,000 bytes`, async () => {
    const body = await listOverHttp(lang);
    assert.equal(body.length, listBytes(lang), 'the measured answer is what the server sends');
    assert.equal(JSON.parse(body.toString()).result.tools.length, listTools().length);

    const options = listTools().reduce((n, tool) => n + budgetedOptions(tool).length, 0);
    const allowance = listTools().length * LIST_BUDGET.perTool + options * LIST_BUDGET.perOption;
    const perTool = mcpToolList(lang).tools.map((x) => `${x.name} ${Buffer.byteLength(JSON.stringify(x))}`).join(', ');
    assert.ok(body.length <= allowance, `tools/list takes ${body.length} bytes in ${lang}, over the ${allowance} its ${listTools().length} tools and ${options} options may take (${LIST_BUDGET.perTool} a tool + ${LIST_BUDGET.perOption} an option): shorten summaries and option lines (README, "How to add a tool"). Per tool: ${perTool}`);
    assert.ok(body.length <= LIST_BUDGET.bytes, `${body.length} bytes`);
  });
}
