// XML and HTML as input: an ".xls" that is really SpreadsheetML 2003 or an HTML table (tools.md §2.2 reads
// them), and .xml/.html inputs for the tools that take them once registered. No DTD is processed, no
// entity expanded, nothing external fetched (§2.11): a DOCTYPE is 400 invalid_file; HTML is inert data.
// A loopback listener counts any connection the service would open.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { listTools } from '../../tools/core/registry.ts';
import { inputFile } from '../helpers/run-tool.ts';
import { assertRefusedEverywhere, sendEverywhere, startHostile, type HostileServer } from './harness.ts';

let srv: HostileServer;
let listener: Server;
let connections = 0;
let port = 0;
before(async () => {
  srv = await startHostile({ MAX_JOBS: '2', JOB_TIMEOUT_S: '10', JOB_MEMORY_MB: '256' });
  listener = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  port = (listener.address() as { port: number }).port;
});
after(async () => {
  listener.close();
  await srv.close();
});

const laughs = (root: string) => {
  const defs = ['<!ENTITY lol "lol">'];
  for (let i = 1; i <= 9; i++) defs.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
  return `<!DOCTYPE ${root} [${defs.join('')}]>`;
};
const external = (root: string) => `<!DOCTYPE ${root} [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY web SYSTEM "http://127.0.0.1:${port}/e"><!ENTITY % p SYSTEM "http://127.0.0.1:${port}/p.dtd"> %p;]>`;

function spreadsheetMl(doctype: string, cell: string): string {
  return `<?xml version="1.0"?>\n${doctype}<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet"><Worksheet ss:Name="Hoja1"><Table><Row><Cell><Data ss:Type="String">a</Data></Cell></Row><Row><Cell><Data ss:Type="String">${cell}</Data></Cell></Row></Table></Worksheet></Workbook>`;
}

test('markup: an .xls that is SpreadsheetML 2003 with a DOCTYPE (entity expansion, external entities) is 400 invalid_file', async () => {
  for (const [name, xml] of [
    ['risas.xls', spreadsheetMl(laughs('Workbook'), '&lol9;')],
    ['xxe.xls', spreadsheetMl(external('Workbook'), '&xxe;&web;')],
  ]) {
    const answers = await sendEverywhere(srv, 'split-rows', [inputFile(name, xml)]);
    assertRefusedEverywhere(answers, 'invalid_file', { option: 'file', secrets: ['root:', 'lollol'] });
  }
  assert.equal(connections, 0, 'nothing was fetched');
});

test('markup: an .xls that is an HTML table with scripts and remote resources is read as inert text or refused, never fetched', async () => {
  const html = `<html><head><base href="http://127.0.0.1:${port}/"><link rel="stylesheet" href="http://127.0.0.1:${port}/x.css"><script src="http://127.0.0.1:${port}/x.js"></script></head><body><table><tr><th>a</th></tr><tr><td><img src="http://127.0.0.1:${port}/x.png">texto<iframe src="http://127.0.0.1:${port}/f"></iframe></td></tr><tr><td style="background:url(http://127.0.0.1:${port}/bg)">dos</td></tr></table></body></html>`;
  const answers = await sendEverywhere(srv, 'split-rows', [inputFile('pagina.xls', html)], { format: 'csv' });
  for (const a of answers) {
    assert.ok(a.status === 200 || a.body.error === 'invalid_file', `${a.via}: ${JSON.stringify(a.body).slice(0, 200)}`);
    if (a.status === 200) assert.ok(!JSON.stringify(a.body.preview).includes('<script'), 'markup is never carried as markup');
  }
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(connections, 0, 'nothing was fetched');
});

/** Tools that read `.xml` or `.html` input (xml-to-excel, html-to-excel), once they exist. */
function readers(t: TestContext, format: 'xml' | 'html') {
  const found = listTools().filter((tool) => (tool.input.formats as readonly string[]).includes(format));
  if (found.length === 0) t.skip(`no registered tool reads .${format} yet`);
  return found;
}

test('markup: .xml input with a DOCTYPE (billion laughs, file:// and http:// entities) is 400 invalid_file', async (t) => {
  for (const tool of readers(t, 'xml')) {
    for (const xml of [`<?xml version="1.0"?>${laughs('datos')}<datos><fila><a>&lol9;</a></fila></datos>`, `<?xml version="1.0"?>${external('datos')}<datos><fila><a>&xxe;&web;</a></fila></datos>`]) {
      assertRefusedEverywhere(await sendEverywhere(srv, tool.id, [inputFile('datos.xml', xml)]), 'invalid_file', { option: 'file', secrets: ['root:', 'lollol'] });
    }
  }
  assert.equal(connections, 0, 'nothing was fetched');
});

test('markup: .xml nested past 256 levels is 400 invalid_file, not a stack overflow', async (t) => {
  for (const tool of readers(t, 'xml')) {
    const deep = `<?xml version="1.0"?><datos>${'<n>'.repeat(100_000)}x${'</n>'.repeat(100_000)}</datos>`;
    assertRefusedEverywhere(await sendEverywhere(srv, tool.id, [inputFile('hondo.xml', deep)]), 'invalid_file', { option: 'file' });
  }
});

test('markup: .html input with scripts and remote resources is inert: nothing fetched, only text taken', async (t) => {
  for (const tool of readers(t, 'html')) {
    const html = `<script>fetch("http://127.0.0.1:${port}/js")</script><table><tr><th>a</th></tr><tr><td><img src="http://127.0.0.1:${port}/i">uno</td></tr></table>`;
    const answers = await sendEverywhere(srv, tool.id, [inputFile('tabla.html', html)]);
    for (const a of answers) assert.ok(a.status === 200 || a.status === 400, `${a.via}: ${a.status}`);
    const nested = `<table><tr><td>${'<table><tr><td>'.repeat(1000)}x${'</td></tr></table>'.repeat(1000)}</td></tr></table>`;
    assertRefusedEverywhere(await sendEverywhere(srv, tool.id, [inputFile('anidada.html', nested)]), 'invalid_file', { option: 'file' });
  }
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(connections, 0, 'nothing was fetched');
});
