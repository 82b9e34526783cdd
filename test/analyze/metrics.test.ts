import { describe, expect, it } from 'vitest';
import { metricsFacts, resourceKeyOfLabels, type MetricsDump } from '../../src/analyze/metrics.js';
import { parseMetricLine, parsePromApiResult, type MetricSample } from '../../src/decode/metrics.js';

const T0 = Date.UTC(2024, 11, 2, 12, 0, 0);
const MIN = 60_000;

/** A dump from exposition-format text, as a file would give it. */
function dump(text: string, timeMs: number | null, input = 'apiserver.prom', apiserver: string | null = null): MetricsDump {
  const samples = text
    .split('\n')
    .map((l) => parseMetricLine(l.trim()))
    .filter((s): s is MetricSample => s !== null);
  return { input, apiserver, timeMs, samples };
}

describe('resourceKeyOfLabels', () => {
  it.each([
    [{ resource: 'pods' }, 'pods'],
    [{ resource: 'deployments.apps' }, 'deployments'],
    [{ resource: 'widgets.example.com' }, 'example.com/widgets'],
    [{ resource: 'gateways.gateway.networking.k8s.io' }, 'gateway.networking.k8s.io/gateways'],
    [{ resource: 'leases.coordination.k8s.io' }, 'leases'],
    [{ group: '', resource: 'pods' }, 'pods'],
    [{ group: 'apps', resource: 'deployments' }, 'deployments'],
    [{ group: 'example.com', resource: 'widgets' }, 'example.com/widgets'],
    [{ resource_prefix: '/pods', index: '' }, 'pods'],
    [{ resource_prefix: '/deployments' }, 'deployments'],
    [{ resource_prefix: '/services/specs' }, 'services'],
    [{ resource_prefix: '/minions' }, 'nodes'],
    [{ resource_prefix: '/example.com/widgets' }, 'example.com/widgets'],
    [{ resource_prefix: '/apiextensions.k8s.io/customresourcedefinitions' }, 'customresourcedefinitions'],
    [{ resource_prefix: '' }, null],
    [{ resource: '' }, null],
    [{ name: 'WatchList' }, null],
  ])('%j → %s', (labels, want) => {
    expect(resourceKeyOfLabels(labels)).toBe(want);
  });
});

describe('metricsFacts, 1.29-style labels, two dumps 60 s apart', () => {
  // pods: 60 LISTs from etcd in the minute, each reads all 7130 pods (60 × 7130 = 427800) and returns 110 (60 × 110 = 6600).
  // Watch cache: 10 unindexed LISTs with a label selector (10 × 7130 = 71300 read, 10 × 5 = 50 returned) and
  // 600 by spec.nodeName through the index (600 × 110 = 66000 read and returned).
  const first = dump(
    `# HELP apiserver_storage_objects [STABLE] Number of stored objects at the time of last check split by kind.
     # TYPE apiserver_storage_objects gauge
     apiserver_storage_objects{resource="pods"} 7130
     apiserver_storage_objects{resource="deployments.apps"} 300
     apiserver_storage_objects{resource="widgets.example.com"} 42
     apiserver_storage_objects{resource="services"} -1
     apiserver_request_duration_seconds_bucket{verb="LIST",le="0.005"} 3
     apiserver_storage_list_total{resource="pods"} 100
     apiserver_storage_list_fetched_objects_total{resource="pods"} 713000
     apiserver_storage_list_evaluated_objects_total{resource="pods"} 713000
     apiserver_storage_list_returned_objects_total{resource="pods"} 11000
     apiserver_cache_list_total{index="",resource_prefix="/pods"} 500
     apiserver_cache_list_total{index="f:spec.nodeName",resource_prefix="/pods"} 1000
     apiserver_cache_list_fetched_objects_total{index="",resource_prefix="/pods"} 3565000
     apiserver_cache_list_fetched_objects_total{index="f:spec.nodeName",resource_prefix="/pods"} 110000
     apiserver_cache_list_returned_objects_total{resource_prefix="/pods"} 112500
     apiserver_cache_list_total{index="",resource_prefix="/services/specs"} 7
     apiserver_cache_list_fetched_objects_total{index="",resource_prefix="/services/specs"} 70
     apiserver_cache_list_returned_objects_total{resource_prefix="/services/specs"} 70
     kubernetes_build_info{git_version="v1.29.4",major="1",minor="29"} 1`,
    T0,
  );
  const second = dump(
    `apiserver_storage_objects{resource="pods"} 7131
     apiserver_storage_objects{resource="deployments.apps"} 301
     apiserver_storage_objects{resource="widgets.example.com"} 42
     apiserver_storage_objects{resource="services"} 25
     apiserver_storage_list_total{resource="pods"} 160
     apiserver_storage_list_fetched_objects_total{resource="pods"} 1140800
     apiserver_storage_list_evaluated_objects_total{resource="pods"} 1140800
     apiserver_storage_list_returned_objects_total{resource="pods"} 17600
     apiserver_cache_list_total{index="",resource_prefix="/pods"} 510
     apiserver_cache_list_total{index="f:spec.nodeName",resource_prefix="/pods"} 1600
     apiserver_cache_list_fetched_objects_total{index="",resource_prefix="/pods"} 3636300
     apiserver_cache_list_fetched_objects_total{index="f:spec.nodeName",resource_prefix="/pods"} 176000
     apiserver_cache_list_returned_objects_total{resource_prefix="/pods"} 178550
     apiserver_cache_list_total{index="",resource_prefix="/services/specs"} 7
     apiserver_cache_list_fetched_objects_total{index="",resource_prefix="/services/specs"} 70
     apiserver_cache_list_returned_objects_total{resource_prefix="/services/specs"} 70
     kubernetes_build_info{git_version="v1.29.4",major="1",minor="29"} 1`,
    T0 + MIN,
  );
  // given out of order: the analysis orders by time
  const f = metricsFacts([second, first]);
  const pods = f.resources.get('pods')!;

  it('gives the etcd LIST deltas and the per-list figures', () => {
    expect(pods.storageLists).toEqual({
      lists: 60,
      fetched: 427800,
      evaluated: 427800,
      returned: 6600,
      fromMs: T0,
      toMs: T0 + MIN,
      apiservers: 1,
      resets: 0,
      fetchedPerList: 7130,
      returnedPerList: 110,
      amplification: 427800 / 6600,
    });
    expect(pods.storageLists!.amplification).toBeCloseTo(64.818, 3); // 7130 / 110
    expect(pods.storageListsReason).toBeNull();
  });

  it('sums the watch-cache deltas over index values; the cache has no evaluated counter', () => {
    // lists 10 + 600 = 610; fetched 71300 + 66000 = 137300; returned 50 + 66000 = 66050
    expect(pods.cacheLists).toMatchObject({ lists: 610, fetched: 137300, evaluated: null, returned: 66050, resets: 0 });
    expect(pods.cacheLists!.amplification).toBeCloseTo(137300 / 66050, 9); // ≈ 2.079
  });

  it('maps resource_prefix /services/specs to services, with zero LISTs in the minute', () => {
    const svc = f.resources.get('services')!;
    expect(svc.cacheLists).toMatchObject({ lists: 0, fetched: 0, returned: 0, fetchedPerList: null, amplification: null });
    // the first count was -1 (unknown), the second is used
    expect(svc.objects).toEqual({ count: 25, timeMs: T0 + MIN, metric: 'apiserver_storage_objects', apiservers: 1 });
  });

  it('gives the latest object count, with zero etcd LISTs for resources nobody listed from etcd', () => {
    expect(pods.objects).toEqual({ count: 7131, timeMs: T0 + MIN, metric: 'apiserver_storage_objects', apiservers: 1 });
    const dep = f.resources.get('deployments')!;
    expect(dep.objects?.count).toBe(301);
    expect(dep.storageLists).toMatchObject({ lists: 0, fetched: 0, returned: 0, amplification: null });
    expect(f.resources.get('example.com/widgets')?.objects?.count).toBe(42);
  });

  it('reads the version; the input is the apiserver', () => {
    expect(f.kubernetesVersion).toBe('v1.29.4');
    expect(f.kubernetesVersions).toEqual(['v1.29.4']);
    expect(f.apiservers).toEqual(['apiserver.prom']);
    expect(pods.sizeEstimateBytes).toBeNull();
    expect(f.storageSizeBytes).toBeNull();
  });
});

describe('metricsFacts, 1.34-style labels', () => {
  const first = dump(
    `apiserver_resource_objects{group="",resource="pods"} 7130
     apiserver_storage_objects{resource="pods"} 7000
     apiserver_resource_objects{group="apps",resource="deployments"} 300
     apiserver_resource_objects{group="example.com",resource="widgets"} 42
     apiserver_resource_size_estimate_bytes{group="",resource="pods"} 13000000
     apiserver_storage_list_total{group="",resource="pods"} 100
     apiserver_storage_list_fetched_objects_total{group="",resource="pods"} 713000
     apiserver_storage_list_evaluated_objects_total{group="",resource="pods"} 713000
     apiserver_storage_list_returned_objects_total{group="",resource="pods"} 11000
     apiserver_cache_list_total{group="",index="f:spec.nodeName",resource="pods"} 1000
     apiserver_cache_list_fetched_objects_total{group="",index="f:spec.nodeName",resource="pods"} 110000
     apiserver_cache_list_returned_objects_total{group="",resource="pods"} 110000
     apiserver_storage_size_bytes{storage_cluster_id="etcd-0"} 1000
     kubernetes_build_info{git_version="v1.34.1",major="1",minor="34"} 1
     kubernetes_feature_enabled{name="WatchList",stage="BETA"} 1
     kubernetes_feature_enabled{name="ConsistentListFromCache",stage="BETA"} 0`,
    T0,
  );
  const second = dump(
    `apiserver_resource_objects{group="",resource="pods"} 7130
     apiserver_storage_objects{resource="pods"} 7000
     apiserver_resource_size_estimate_bytes{group="",resource="pods"} 13313287
     apiserver_storage_list_total{group="",resource="pods"} 160
     apiserver_storage_list_fetched_objects_total{group="",resource="pods"} 1140800
     apiserver_storage_list_evaluated_objects_total{group="",resource="pods"} 1140800
     apiserver_storage_list_returned_objects_total{group="",resource="pods"} 17600
     apiserver_cache_list_total{group="",index="f:spec.nodeName",resource="pods"} 1600
     apiserver_cache_list_fetched_objects_total{group="",index="f:spec.nodeName",resource="pods"} 176000
     apiserver_cache_list_returned_objects_total{group="",resource="pods"} 176000
     apiserver_storage_size_bytes{storage_cluster_id="etcd-0"} 2048
     kubernetes_build_info{git_version="v1.34.1",major="1",minor="34"} 1
     kubernetes_feature_enabled{name="WatchList",stage="BETA"} 1
     kubernetes_feature_enabled{name="ConsistentListFromCache",stage="BETA"} 1`,
    T0 + MIN,
  );
  const f = metricsFacts([first, second]);
  const pods = f.resources.get('pods')!;

  it('prefers apiserver_resource_objects over the deprecated storage_objects', () => {
    expect(pods.objects).toEqual({ count: 7130, timeMs: T0 + MIN, metric: 'apiserver_resource_objects', apiservers: 1 });
  });

  it('gives the same per-list figures as 1.29 labels', () => {
    expect(pods.storageLists).toMatchObject({ lists: 60, fetched: 427800, returned: 6600, fetchedPerList: 7130, returnedPerList: 110 });
    expect(pods.storageLists!.amplification).toBeCloseTo(64.82, 2);
    // 600 LISTs by node, 110 pods each: read and returned alike
    expect(pods.cacheLists).toMatchObject({ lists: 600, fetched: 66000, returned: 66000, amplification: 1 });
  });

  it('keys deployments.apps as deployments and a CRD as group/resource', () => {
    expect(f.resources.get('deployments')?.objects?.metric).toBe('apiserver_resource_objects');
    expect(f.resources.get('example.com/widgets')?.objects?.count).toBe(42);
  });

  it('reads the size estimate, the database size, the version and the feature gates (latest wins)', () => {
    expect(pods.sizeEstimateBytes).toBe(13313287);
    expect(f.storageSizeBytes).toBe(2048);
    expect(f.kubernetesVersion).toBe('v1.34.1');
    expect([...f.featureGates]).toEqual([
      ['ConsistentListFromCache', true],
      ['WatchList', true],
    ]);
  });
});

describe('metricsFacts, counter resets', () => {
  it('takes the later value as the delta after a restart, and counts the reset', () => {
    const text = (lists: number, fetched: number, returned: number): string =>
      `apiserver_storage_list_total{resource="pods"} ${lists}
       apiserver_storage_list_fetched_objects_total{resource="pods"} ${fetched}
       apiserver_storage_list_returned_objects_total{resource="pods"} ${returned}`;
    // 100 → 160 (+60), restart, → 30 (+30): 90 LISTs; fetched 427800 + 213900 = 641700 = 90 × 7130;
    // returned 6600 + 3300 = 9900 = 90 × 110
    const f = metricsFacts([
      dump(text(100, 713000, 11000), T0),
      dump(text(160, 1140800, 17600), T0 + MIN),
      dump(text(30, 213900, 3300), T0 + 2 * MIN),
    ]);
    expect(f.resources.get('pods')!.storageLists).toMatchObject({
      lists: 90,
      fetched: 641700,
      returned: 9900,
      resets: 1,
      fromMs: T0,
      toMs: T0 + 2 * MIN,
      fetchedPerList: 7130,
      returnedPerList: 110,
    });
  });

  it('counts a series that first appears in a later dump from 0 (counters are created at their first increment)', () => {
    const f = metricsFacts([
      dump('apiserver_storage_list_total{resource="nodes"} 5', T0),
      dump('apiserver_storage_list_total{resource="nodes"} 5\napiserver_storage_list_total{resource="pods"} 60', T0 + MIN),
    ]);
    expect(f.resources.get('pods')!.storageLists?.lists).toBe(60);
    expect(f.resources.get('nodes')!.storageLists?.lists).toBe(0);
  });
});

describe('metricsFacts, three apiservers behind one Prometheus', () => {
  // A and B are scraped twice a minute apart, C once. A: +60 LISTs (60 × 7130 read, 60 × 110 returned);
  // B: +30 (30 × 7130, 30 × 110). Sum: 90 LISTs, 641700 read, 9900 returned: 7130 and 110 a list.
  const t = T0 / 1000;
  const series = (instance: string, name: string, values: [number, string][]): unknown => ({
    metric: { __name__: name, resource: 'pods', instance, job: 'apiserver' },
    values,
  });
  const doc = {
    status: 'success',
    data: {
      resultType: 'matrix',
      result: [
        series('10.0.0.1:443', 'apiserver_storage_objects', [[t, '7120'], [t + 60, '7130']]),
        series('10.0.0.2:443', 'apiserver_storage_objects', [[t + 30, '7100']]),
        series('10.0.0.3:443', 'apiserver_storage_objects', [[t + 60, '-1']]),
        series('10.0.0.1:443', 'apiserver_storage_list_total', [[t, '100'], [t + 60, '160']]),
        series('10.0.0.1:443', 'apiserver_storage_list_fetched_objects_total', [[t, '713000'], [t + 60, '1140800']]),
        series('10.0.0.1:443', 'apiserver_storage_list_returned_objects_total', [[t, '11000'], [t + 60, '17600']]),
        series('10.0.0.2:443', 'apiserver_storage_list_total', [[t + 1, '50'], [t + 61, '80']]),
        series('10.0.0.2:443', 'apiserver_storage_list_fetched_objects_total', [[t + 1, '356500'], [t + 61, '570400']]),
        series('10.0.0.2:443', 'apiserver_storage_list_returned_objects_total', [[t + 1, '5500'], [t + 61, '8800']]),
        series('10.0.0.3:443', 'apiserver_storage_list_total', [[t + 60, '10']]),
        series('10.0.0.3:443', 'apiserver_storage_list_fetched_objects_total', [[t + 60, '71300']]),
        series('10.0.0.3:443', 'apiserver_storage_list_returned_objects_total', [[t + 60, '1100']]),
      ],
    },
  };
  const f = metricsFacts([{ input: 'prometheus.json', apiserver: null, timeMs: null, samples: parsePromApiResult(doc).samples }]);
  const pods = f.resources.get('pods')!;

  it('sums the deltas of the apiservers with two scrapes', () => {
    expect(pods.storageLists).toMatchObject({ lists: 90, fetched: 641700, returned: 9900, apiservers: 2, fromMs: T0, toMs: T0 + 61_000 });
    expect(pods.storageLists!.fetchedPerList).toBe(7130);
    expect(pods.storageLists!.returnedPerList).toBe(110);
    expect(pods.storageLists!.amplification).toBeCloseTo(64.82, 2);
  });

  it('takes the largest latest count, ignoring -1', () => {
    expect(pods.objects).toEqual({ count: 7130, timeMs: T0 + MIN, metric: 'apiserver_storage_objects', apiservers: 2 });
  });

  it('names the apiservers by instance', () => {
    expect(f.apiservers).toEqual(['10.0.0.1:443', '10.0.0.2:443', '10.0.0.3:443']);
  });
});

describe('metricsFacts, when counters give no rate', () => {
  const text = `apiserver_storage_objects{resource="pods"} 7130
    apiserver_storage_list_total{resource="pods"} 100
    apiserver_storage_list_fetched_objects_total{resource="pods"} 713000
    apiserver_storage_list_returned_objects_total{resource="pods"} 11000`;

  it('one dump: counts, but no deltas, with a reason', () => {
    const pods = metricsFacts([dump(text, T0)]).resources.get('pods')!;
    expect(pods.objects?.count).toBe(7130);
    expect(pods.storageLists).toBeNull();
    expect(pods.storageListsReason).toMatch(/two dumps/);
    expect(pods.cacheLists).toBeNull();
    expect(pods.cacheListsReason).toMatch(/no apiserver_cache_list_\* samples/);
  });

  it('two dumps at the same time give no rate', () => {
    const pods = metricsFacts([dump(text, T0), dump(text, T0)]).resources.get('pods')!;
    expect(pods.storageLists).toBeNull();
    expect(pods.storageListsReason).toMatch(/two dumps at different times/);
  });

  it('two dumps of different apiservers give no rate', () => {
    const pods = metricsFacts([dump(text, T0, 'a.prom'), dump(text, T0 + MIN, 'b.prom')]).resources.get('pods')!;
    expect(pods.storageLists).toBeNull();
  });

  it('dumps without a time give no rate, and say why', () => {
    const pods = metricsFacts([dump(text, null), dump(text, null)]).resources.get('pods')!;
    expect(pods.storageLists).toBeNull();
    expect(pods.storageListsReason).toMatch(/no time/);
    expect(pods.objects).toEqual({ count: 7130, timeMs: null, metric: 'apiserver_storage_objects', apiservers: 1 });
  });

  it('no dumps: nothing', () => {
    const f = metricsFacts([]);
    expect(f.resources.size).toBe(0);
    expect(f.kubernetesVersion).toBeNull();
    expect(f.featureGates.size).toBe(0);
  });
});

describe('metricsFacts, the storage label (watch-cache LISTs also under apiserver_storage_list_*)', () => {
  const text = (etcd: number, cache: number): string =>
    `apiserver_storage_list_requests_total{group="",index="",resource="pods",storage="etcd"} ${etcd}
     apiserver_storage_list_fetched_objects_total{group="",index="",resource="pods",storage="etcd"} ${etcd * 7130}
     apiserver_storage_list_evaluated_objects_total{group="",resource="pods",storage="etcd"} ${etcd * 7130}
     apiserver_storage_list_evaluated_objects_total{group="",resource="pods",storage="watchcache"} 0
     apiserver_storage_list_returned_objects_total{group="",resource="pods",storage="etcd"} ${etcd * 110}
     apiserver_storage_list_requests_total{group="",index="f:spec.nodeName",resource="pods",storage="watchcache"} ${cache}
     apiserver_storage_list_fetched_objects_total{group="",index="f:spec.nodeName",resource="pods",storage="watchcache"} ${cache * 110}
     apiserver_storage_list_returned_objects_total{group="",resource="pods",storage="watchcache"} ${cache * 110}`;
  const cacheText = (cache: number): string =>
    `apiserver_cache_list_total{group="",index="f:spec.nodeName",resource="pods"} ${cache}
     apiserver_cache_list_fetched_objects_total{group="",index="f:spec.nodeName",resource="pods"} ${cache * 110}
     apiserver_cache_list_returned_objects_total{group="",resource="pods"} ${cache * 110}`;

  it('counts only storage="etcd" as etcd LISTs', () => {
    const pods = metricsFacts([dump(text(100, 1000), T0), dump(text(160, 1600), T0 + MIN)]).resources.get('pods')!;
    expect(pods.storageLists).toMatchObject({ lists: 60, fetched: 427800, evaluated: 427800, returned: 6600 });
    // without apiserver_cache_list_* the watchcache series are the cache's: 600 LISTs of 110
    expect(pods.cacheLists).toMatchObject({ lists: 600, fetched: 66000, evaluated: null, returned: 66000 });
  });

  it('does not count watch-cache LISTs twice when apiserver_cache_list_* is there too', () => {
    const pods = metricsFacts([
      dump(`${text(100, 1000)}\n${cacheText(1000)}`, T0),
      dump(`${text(160, 1600)}\n${cacheText(1600)}`, T0 + MIN),
    ]).resources.get('pods')!;
    expect(pods.cacheLists).toMatchObject({ lists: 600, fetched: 66000, returned: 66000 });
  });
});
