# Runs `audit-scan partial --manifest M --shard i/N` as the tasks of a Dask distributed cluster of 2 worker
# processes (issue 24; docs/scale-out.md), one task a shard, and prints the parts' paths as JSON.
# Usage: python3 dask-shards.py NODE BIN MANIFEST N OUTDIR
import json
import subprocess
import sys

from dask.distributed import Client, LocalCluster


def run_shard(i, node, bin_path, manifest, n, outdir):
    """One shard: the partial goes to a file under outdir; the task returns its path (or fails with stderr)."""
    path = f"{outdir}/part-{i}.json.gz"
    with open(path, "wb") as out:
        r = subprocess.run([node, bin_path, "partial", "--manifest", manifest, "--shard", f"{i}/{n}"], stdout=out, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.decode())
    return path


def main():
    node, bin_path, manifest, n, outdir = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
        futures = client.map(run_shard, range(1, n + 1), node=node, bin_path=bin_path, manifest=manifest, n=n, outdir=outdir)
        paths = client.gather(futures)
        workers = len(client.scheduler_info()["workers"])
    print(json.dumps({"parts": paths, "workers": workers}))


if __name__ == "__main__":
    main()
