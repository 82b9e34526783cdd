// Reports that do not mislead (issue 21): COLUMNS when stdout is a pipe, a series active in one bucket, the ratio
// of objects read to returned said in words on a linear bar, long input paths that wrap in their cell.
import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { spawnCli } from '../support.js';

describe('reports at the edges', () => {
  it('COLUMNS sets the table width when stdout is not a terminal (| less -R in an 80-column pane)', async () => {
    const r = await spawnCli(['fixtures/demo'], null, { env: { COLUMNS: '80' } });
    const lines = r.stdout.split('\n');
    expect(lines.filter((l) => stringWidth(l) > 80)).toEqual([]);
    // without it, 120
    const wide = await spawnCli(['fixtures/demo'], null, { env: { COLUMNS: '' } });
    expect(Math.max(...wide.stdout.split('\n').map((l) => stringWidth(l)))).toBeGreaterThan(80);
  });

  it('HTML: the kubelet’s 65 lists, all in the second 10:00:02, are drawn (a one-point polyline draws nothing)', async () => {
    const r = await spawnCli(['-o', 'html', 'fixtures/demo']);
    expect(r.stdout).toContain('r="3.5" fill="#8250df"><title>kubelet system:node:&lt;node&gt; list pods spec.nodeName=&lt;node&gt;: 65/s at 10:00:02</title></circle>');
  });

  it('HTML: objects read against returned in words, on a linear scale (65× no longer looks like 2:1)', async () => {
    const r = await spawnCli(['-o', 'html', 'fixtures/demo']);
    expect(r.stdout).toContain('Objects etcd read per list against objects returned</figcaption>');
    expect(r.stdout).not.toContain('(log scale)');
    expect(r.stdout).toContain('>7,130 read for 110 returned: 65×</text>');
  });

  it('HTML: an input path wraps inside its cell', async () => {
    const r = await spawnCli(['-o', 'html', 'fixtures/demo']);
    expect(r.stdout).toContain('td code.path{white-space:normal;overflow-wrap:anywhere;word-break:break-all}');
    expect(r.stdout).toContain('<td><code class="path">fixtures/demo/etcd-master-1.log</code></td>');
  });
});
