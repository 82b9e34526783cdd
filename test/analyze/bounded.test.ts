// Memory must grow with groups, not events: the group cap folds small groups and says so (issue 4).
import { describe, expect, it } from 'vitest';
import { auditLine, runCli } from '../support.js';

describe('group cap', () => {
  it('folds the smallest groups into "other", keeps totals, and reports the cap', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 200; i++) lines.push(auditLine({ auditID: `r${i}`, userAgent: `random-${i}/1` }));
    for (let i = 0; i < 50; i++) lines.push(auditLine({ auditID: `big${i}`, userAgent: 'big-client/1' }));
    const r = await runCli(['-o', 'json', '--max-groups', '20', '-'], lines.join('\n') + '\n');
    const rep = JSON.parse(r.stdout);
    expect(rep.totals.listRequests).toBe(250);
    expect(rep.listGroups[0]).toMatchObject({ userAgent: 'big-client/1', requests: 50 });
    expect(rep.groupsCapped.foldedGroups).toBeGreaterThan(150);
    expect(rep.listGroupsTotal + rep.groupsCapped.foldedGroups).toBe(201);
    expect(r.stderr).toContain('group cap hit');
  });
});
