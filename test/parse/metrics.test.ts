import { describe, expect, it } from 'vitest';
import { isMetricsTextLine, looksLikePromApiResult, parseAnyMetricLine, parseMetricLine, parsePromApiResult, USED_METRICS } from '../../src/decode/metrics.js';

describe('parseMetricLine', () => {
  it.each([
    ['apiserver_storage_objects{resource="pods"} 7130', 'apiserver_storage_objects', { resource: 'pods' }, 7130, null],
    ['etcd_object_counts{resource="deployments.apps"} 12', 'etcd_object_counts', { resource: 'deployments.apps' }, 12, null],
    ['apiserver_storage_size_bytes 3', 'apiserver_storage_size_bytes', {}, 3, null],
    ['apiserver_storage_list_fetched_objects_total{resource="pods"} 1.1408e+06', 'apiserver_storage_list_fetched_objects_total', { resource: 'pods' }, 1140800, null],
    ['apiserver_storage_objects{resource="pods"} 7130 1733140000123', 'apiserver_storage_objects', { resource: 'pods' }, 7130, 1733140000123],
    ['apiserver_resource_objects{group="",resource="pods"} -1', 'apiserver_resource_objects', { group: '', resource: 'pods' }, -1, null],
    // spaces around labels and between the parts, and a trailing comma (all allowed by the format)
    ['apiserver_cache_list_total{ index = "" , resource_prefix = "/pods", }   100 \t', 'apiserver_cache_list_total', { index: '', resource_prefix: '/pods' }, 100, null],
    ['apiserver_cache_list_total {index="f:spec.nodeName",resource_prefix="/pods"} 5', 'apiserver_cache_list_total', { index: 'f:spec.nodeName', resource_prefix: '/pods' }, 5, null],
    ['kubernetes_build_info{gitVersion="v1.34.1",major="1",minor="34"} 1', 'kubernetes_build_info', { gitVersion: 'v1.34.1', major: '1', minor: '34' }, 1, null],
    ['apiserver_storage_size_bytes{storage_cluster_id="etcd-0"} 0.5', 'apiserver_storage_size_bytes', { storage_cluster_id: 'etcd-0' }, 0.5, null],
    ['apiserver_storage_size_bytes{storage_cluster_id="etcd-0"} .5e1', 'apiserver_storage_size_bytes', { storage_cluster_id: 'etcd-0' }, 5, null],
  ])('%s', (line, name, labels, value, ts) => {
    expect(parseMetricLine(line)).toEqual({ name, labels, value, timestampMs: ts });
  });

  it.each([
    ['+Inf', Infinity],
    ['Inf', Infinity],
    ['-Inf', -Infinity],
  ])('reads the value %s', (v, want) => {
    expect(parseMetricLine(`apiserver_storage_size_bytes ${v}`)?.value).toBe(want);
  });

  it('reads NaN', () => {
    expect(parseMetricLine('apiserver_storage_size_bytes{storage_cluster_id="x"} NaN')?.value).toBeNaN();
  });

  it.each([
    // \\ → one backslash, \" → a quote, \n → a newline; other escapes stay as written
    ['a\\\\b', 'a\\b'],
    ['say \\"hi\\"', 'say "hi"'],
    ['two\\nlines', 'two\nlines'],
    ['c:\\\\x\\"', 'c:\\x"'],
    ['odd\\t', 'odd\\t'],
    ['}, ', '}, '],
  ])('unescapes the label value %s', (raw, want) => {
    const s = parseMetricLine(`kubernetes_feature_enabled{name="${raw}",stage="BETA"} 1`);
    expect(s?.labels).toEqual({ name: want, stage: 'BETA' });
  });

  it.each([
    ['', 'blank'],
    ['# HELP apiserver_storage_objects [STABLE] Number of stored objects', 'a comment'],
    ['# TYPE apiserver_storage_objects gauge', 'a type line'],
    ['apiserver_storage_objects{resource="pods"}', 'no value'],
    ['apiserver_storage_objects{resource="pods"} seven', 'a value that is no number'],
    ['apiserver_storage_objects{resource="pods"} 1 2 3', 'text after the timestamp'],
    ['apiserver_storage_objects{resource="pods"} 1 1.5', 'a timestamp that is no integer'],
    ['apiserver_storage_objects{resource="pods" 1', 'unclosed labels'],
    ['apiserver_storage_objects{resource=pods} 1', 'an unquoted label value'],
    ['apiserver_storage_objects{resource="pods} 1', 'an unclosed quote'],
    ['apiserver_storage_objects{resource="a\\"} 1', 'an escaped quote that leaves the value open'],
    ['apiserver_storage_objects{resource="pods" group=""} 1', 'labels without a comma'],
    ['apiserver_storage_objects{9x="a"} 1', 'a label name that starts with a digit'],
    ['apiserver_storage_objects7', 'a name glued to its value'],
    ['apiserver_storage_objects 0x1F', 'a hex value'],
    ['{"kind":"Event"}', 'JSON'],
  ])('returns null for %s (%s)', (line) => {
    expect(parseMetricLine(line)).toBeNull();
  });

  it.each([
    'apiserver_request_duration_seconds_bucket{verb="LIST",le="0.005"} 3',
    'apiserver_storage_objects_extra{resource="pods"} 1',
    'process_cpu_seconds_total 12.5',
    'go_goroutines 300',
    'etcd_request_duration_seconds_count{operation="get",type="pods"} 9',
  ])('drops metrics the analysis does not use: %s', (line) => {
    expect(parseMetricLine(line)).toBeNull();
    expect(parseAnyMetricLine(line)).not.toBeNull();
  });

  it('USED_METRICS names every metric the brief lists', () => {
    for (const n of [
      'apiserver_storage_objects', 'apiserver_resource_objects', 'etcd_object_counts', 'apiserver_storage_list_total',
      'apiserver_storage_list_fetched_objects_total', 'apiserver_storage_list_evaluated_objects_total',
      'apiserver_storage_list_returned_objects_total', 'apiserver_cache_list_total', 'apiserver_cache_list_fetched_objects_total',
      'apiserver_cache_list_returned_objects_total', 'apiserver_resource_size_estimate_bytes', 'apiserver_storage_size_bytes',
      'kubernetes_build_info', 'kubernetes_feature_enabled',
    ]) expect(USED_METRICS.has(n), n).toBe(true);
  });
});

describe('parseAnyMetricLine', () => {
  it.each([
    ['go_goroutines 300', { name: 'go_goroutines', labels: {}, value: 300, timestampMs: null }],
    ['http:requests:rate5m{code="200"} 1e-3', { name: 'http:requests:rate5m', labels: { code: '200' }, value: 0.001, timestampMs: null }],
    ['  indented_metric 1', { name: 'indented_metric', labels: {}, value: 1, timestampMs: null }],
    ['neg{} -2 -5', { name: 'neg', labels: {}, value: -2, timestampMs: -5 }],
  ])('%s', (line, want) => {
    expect(parseAnyMetricLine(line)).toEqual(want);
  });
});

describe('isMetricsTextLine', () => {
  it.each([
    ['# HELP apiserver_storage_objects [STABLE] Number of stored objects', true],
    ['# HELP go_goroutines', true],
    ['# TYPE apiserver_storage_objects gauge', true],
    ['# TYPE apiserver_request_duration_seconds histogram', true],
    ['# TYPE x summary', true],
    ['# TYPE x untyped', true],
    ['# TYPE x counter', true],
    ['# TYPE x widget', false],
    ['# TYPE 9x gauge', false],
    ['# just a comment', false],
    ['apiserver_storage_objects{resource="pods"} 7130', true],
    ['go_goroutines 300', true],
    ['go_goroutines', false],
    ['{"kind":"Event","stage":"ResponseComplete"}', false],
    ['2024-01-01 12:00:00.000000 W | etcdserver: read-only range request', false],
    ['I1201 08:00:00.000000       1 trace.go:236] Trace', false],
    ['', false],
  ])('%s → %s', (line, want) => {
    expect(isMetricsTextLine(line)).toBe(want);
  });
});

describe('parsePromApiResult', () => {
  it('reads a vector, seconds to ms, name from __name__', () => {
    const doc = {
      status: 'success',
      data: {
        resultType: 'vector',
        result: [
          { metric: { __name__: 'apiserver_storage_objects', resource: 'pods', instance: '10.0.0.1:443' }, value: [1733140000.123, '7130'] },
          { metric: { __name__: 'apiserver_storage_objects', resource: 'nodes', instance: '10.0.0.1:443' }, value: [1733140000, '+Inf'] },
        ],
      },
    };
    expect(looksLikePromApiResult(doc)).toBe(true);
    expect(parsePromApiResult(doc)).toEqual({
      samples: [
        { name: 'apiserver_storage_objects', labels: { resource: 'pods', instance: '10.0.0.1:443' }, value: 7130, timestampMs: 1733140000123 },
        { name: 'apiserver_storage_objects', labels: { resource: 'nodes', instance: '10.0.0.1:443' }, value: Infinity, timestampMs: 1733140000000 },
      ],
      error: null,
    });
  });

  it('reads a matrix as one sample per point', () => {
    const doc = {
      status: 'success',
      data: {
        resultType: 'matrix',
        result: [
          {
            metric: { __name__: 'apiserver_storage_list_total', resource: 'pods' },
            values: [[1733140000, '100'], [1733140060, '160'], [1733140120.5, '220']],
          },
        ],
      },
    };
    const r = parsePromApiResult(doc);
    expect(r.error).toBeNull();
    expect(r.samples.map((s) => [s.timestampMs, s.value])).toEqual([[1733140000000, 100], [1733140060000, 160], [1733140120500, 220]]);
    expect(r.samples.every((s) => s.name === 'apiserver_storage_list_total' && s.labels.resource === 'pods')).toBe(true);
    // each point has its own labels object
    expect(r.samples[0]!.labels).not.toBe(r.samples[1]!.labels);
  });

  it('accepts a bare array of results', () => {
    const doc = [{ metric: { __name__: 'kubernetes_build_info', gitVersion: 'v1.29.4' }, value: [1700000000, '1'] }];
    expect(looksLikePromApiResult(doc)).toBe(true);
    expect(parsePromApiResult(doc).samples).toEqual([{ name: 'kubernetes_build_info', labels: { gitVersion: 'v1.29.4' }, value: 1, timestampMs: 1700000000000 }]);
  });

  it('gives the error text of status "error"', () => {
    const doc = { status: 'error', errorType: 'bad_data', error: 'invalid parameter "query"' };
    expect(looksLikePromApiResult(doc)).toBe(true);
    expect(parsePromApiResult(doc)).toEqual({ samples: [], error: 'bad_data: invalid parameter "query"' });
  });

  it('names a result type without series', () => {
    expect(parsePromApiResult({ status: 'success', data: { resultType: 'scalar', result: [1, '2'] } }).error).toBe('result type scalar has no series');
  });

  it('skips malformed points and says so when none is left', () => {
    const doc = { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: ['x', '1'] }, { metric: {}, value: [1, 'seven'] }] } };
    expect(parsePromApiResult(doc)).toEqual({ samples: [], error: '2 malformed result item(s)' });
  });

  it('keeps a series without __name__ under the name ""', () => {
    const doc = [{ metric: { resource: 'pods' }, value: [1, '3'] }];
    expect(parsePromApiResult(doc).samples[0]).toEqual({ name: '', labels: { resource: 'pods' }, value: 3, timestampMs: 1000 });
  });

  it.each([
    [null],
    [{}],
    [[]],
    [{ status: 'success', data: { resultType: 'vector' } }],
    [[{ kind: 'Event' }]],
    [{ kind: 'EventList', items: [] }],
  ])('does not take %j for a Prometheus result', (doc) => {
    expect(looksLikePromApiResult(doc)).toBe(false);
  });
});
