"""What the sandbox costs a call: the round trip of one `play` call to `arena serve
greedy`, started directly and through `arena __sandbox` (namespaces, caps, Landlock),
in interleaved blocks of 1,000 calls; medians and p99 in microseconds, and their ratio.

Run: cargo build --release -p arena && python3 arena/benches/sandbox_round_trip.py target/release/arena
(docs/benchmarks.md). The Rust bench `protocol` measures the confined round trip alone.
"""
import os, statistics, subprocess, sys, tempfile, time
arena = os.path.abspath(sys.argv[1])
work = tempfile.mkdtemp(prefix="arena-rt-")
serve = [arena, "serve", "greedy", "--game", "dominoes"]
kinds = {
    "direct": ["/bin/sh", "-c", "exec " + " ".join(serve)],
    "sandbox": [arena, "__sandbox", "--rw", work, "--ro", os.path.dirname(arena), "--cpu-s", "300", "--processes", "64", "--", "/bin/sh", "-c", "exec " + " ".join(serve)],
}
procs = {k: subprocess.Popen(c, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=work, bufsize=0) for k, c in kinds.items()}
def call(p, text):
    p.stdin.write(text.encode()); p.stdin.flush()
    return p.stdout.readline()
for p in procs.values():
    call(p, "init\n5\n4\n")
play = "play\n4\n0-0\n1-3\n2-2\n3-4\n1\n4-4\n7\n"
times = {k: [] for k in kinds}
for block in range(10):
    for k, p in procs.items():
        for _ in range(1000):
            call(p, "reset\n4-4\n")
            t = time.perf_counter_ns(); call(p, play); times[k].append(time.perf_counter_ns() - t)
for k, v in times.items():
    v.sort()
    print(f"{k:8s} median {statistics.median(v)/1000:.1f} us  p99 {v[len(v)*99//100]/1000:.1f} us  ({len(v)} calls)")
print(f"ratio sandbox/direct (median): {statistics.median(times['sandbox'])/statistics.median(times['direct']):.3f}")
for p in procs.values():
    p.stdin.close(); p.wait()
