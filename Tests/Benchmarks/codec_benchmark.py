# Generates the benchmark documents (with plistlib/json, so neither side writes its own input) and
# times CPython's plistlib and json on them.
#   python3 codec_benchmark.py generate DIR [KEYS:NAME...]     (default 1000:1k 100000:100k)
#   python3 codec_benchmark.py time REPS NAME FILE...
import datetime, json, plistlib, random, sys, time

def document(keys):
    rng = random.Random(keys)
    doc = {}
    for i in range(keys):
        k = rng.randint(0, 7)
        key = f"com.example.setting.{i:06d}"
        if k == 0: doc[key] = f"value {rng.random()} ünïcødé"
        elif k == 1: doc[key] = rng.randint(-2**40, 2**40)
        elif k == 2: doc[key] = rng.uniform(-1e6, 1e6)
        elif k == 3: doc[key] = rng.random() < 0.5
        elif k == 4: doc[key] = [rng.randint(0, 100), "item", rng.random() < 0.5]
        elif k == 5: doc[key] = {"width": rng.randint(0, 4000), "height": rng.randint(0, 4000), "title": "window"}
        elif k == 6: doc[key] = bytes(rng.randint(0, 255) for _ in range(16))
        else: doc[key] = datetime.datetime(2020, 1, 1) + datetime.timedelta(seconds=rng.randint(0, 10**8))
    return doc

def json_safe(doc):
    out = {}
    for k, v in doc.items():
        if isinstance(v, bytes): out[k] = v.hex()
        elif isinstance(v, datetime.datetime): out[k] = v.isoformat() + "Z"
        else: out[k] = v
    return out

if sys.argv[1] == "generate":
    folder = sys.argv[2]
    sizes = [(int(keys), name) for keys, name in (arg.split(":") for arg in sys.argv[3:] or ["1000:1k", "100000:100k"])]
    for keys, name in sizes:
        doc = document(keys)
        open(f"{folder}/{name}.bin.plist", "wb").write(plistlib.dumps(doc, fmt=plistlib.FMT_BINARY, sort_keys=False))
        open(f"{folder}/{name}.xml.plist", "wb").write(plistlib.dumps(doc, fmt=plistlib.FMT_XML))
        open(f"{folder}/{name}.json", "w").write(json.dumps(json_safe(doc), indent=2))
else:
    reps, name = int(sys.argv[2]), sys.argv[3]
    for path in sys.argv[4:]:
        data = open(path, "rb").read()
        fmt = "json" if path.endswith(".json") else ("binary" if path.endswith(".bin.plist") else "xml")
        loads = (lambda d: json.loads(d)) if fmt == "json" else (lambda d: plistlib.loads(d))
        value = loads(data)
        dumps = (lambda v: json.dumps(v, sort_keys=True, indent=2)) if fmt == "json" else \
                (lambda v: plistlib.dumps(v, fmt=plistlib.FMT_BINARY if fmt == "binary" else plistlib.FMT_XML))
        best = {}
        for _ in range(reps):
            for key, fn in (("python decode", lambda: loads(data)), ("python encode", lambda: dumps(value))):
                t = time.perf_counter(); fn(); t = time.perf_counter() - t
                best[key] = min(best.get(key, t), t)
        for key in sorted(best):
            print(f"{name}\t{fmt}\t{key}\t{best[key]:.6f}")
