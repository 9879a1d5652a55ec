# The JSON documents for bench-json.sh, and CPython's side of it.
#   python3 json_benchmark.py generate DIR     writes DIR/shuffled.json and DIR/sorted.json
#   python3 json_benchmark.py time REPS FILE...   json.loads of each file (bytes in memory), one line
#                                                 per run: NAME python WALL-SECONDS CPU-SECONDS
#                                                 (CPU time of this thread)
# Both documents hold the same 100k members; shuffled.json lists them in random key order (as most
# programs write JSON), sorted.json in code-point order (as prefs writes it).
import json, os, random, sys, time

WORDS = ["window", "editor", "font", "theme", "sync", "cache", "proxy", "toolbar", "recent", "auto"]
TEXTS = ["Hello, world", "Grüße aus Köln", "東京の設定", "naïve café ünïcødé", "emoji 😀 ok", "/usr/local/bin"]


def value(rng, i):
    k = rng.randint(0, 9)
    if k == 0: return rng.choice(TEXTS) + f" {i}"
    if k == 1: return f"line one\nline two\t\"quoted\" \\ back {i}"  # escapes
    if k == 2: return rng.randint(-2**31, 2**31)
    if k == 3: return rng.randint(-2**62, 2**63 - 1)
    if k == 4: return rng.uniform(-1e6, 1e6)
    if k == 5: return rng.choice([1.5e-7, 6.02e23, -0.0, 0.1, 3.0]) * rng.randint(1, 9)
    if k == 6: return rng.random() < 0.5
    if k == 7: return {"width": rng.randint(0, 4000), "height": rng.randint(0, 4000), "title": "window", "visible": True}
    if k == 8: return [rng.randint(0, 100), "item", rng.random(), False, {"id": i}]
    return f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T12:00:00Z"


def member(rng, i):
    key = f"com.example.{rng.choice(WORDS)}.{rng.choice(WORDS)}{i:06d}"
    if i % 50 == 0: key += " ünïcødé"
    v = value(rng, i)
    # One value in twenty spells its non-ASCII characters as \u escapes (surrogate pairs included).
    return key, json.dumps(key, ensure_ascii=False) + ": " + json.dumps(v, ensure_ascii=i % 20 == 0)


def generate(folder, keys=100_000):
    rng = random.Random(100_000)
    members = [member(rng, i) for i in range(keys)]
    rng.shuffle(members)
    for name, order in (("shuffled", members), ("sorted", sorted(members, key=lambda m: m[0].encode()))):
        with open(os.path.join(folder, name + ".json"), "w", encoding="utf-8") as out:
            out.write("{\n  " + ",\n  ".join(text for _, text in order) + "\n}\n")


def timings(reps, paths):
    for path in paths:
        data = open(path, "rb").read()
        name = os.path.basename(path).removesuffix(".json")
        json.loads(data)  # warm-up
        for _ in range(reps):
            start, cpu = time.perf_counter(), time.thread_time()
            json.loads(data)
            cpu, wall = time.thread_time() - cpu, time.perf_counter() - start
            print(f"{name}\tpython\t{wall:.6f}\t{cpu:.6f}")


if sys.argv[1] == "generate":
    generate(sys.argv[2], *map(int, sys.argv[3:]))
else:
    timings(int(sys.argv[2]), sys.argv[3:])
