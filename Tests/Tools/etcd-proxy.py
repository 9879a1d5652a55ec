# An HTTP proxy in front of one etcd member, for the tests (EtcdProxy.swift starts it).
# usage: etcd-proxy.py LISTEN UPSTREAM MODE   (LISTEN 0: any free port; the port is printed on a line)
# MODE: pass (forward everything), drop-commit (forward a conditional write transaction, then close
# the client's connection without answering, DROPS times: its answer is lost after it committed),
# slow-commit (forward one, then wait SLEEP seconds before answering), blackhole (accept, read,
# never answer), norange (never answer a range request: suites, read by transactions, still read;
# the blobs of external values, read by ranges, do not), commit-then-blackhole (forward the first
# conditional write transaction, close the client's connection without its answer, then never answer
# anything again: a commit whose answer is lost while no endpoint answers), hold-commit:PATH (forward
# the first conditional write transaction, create PATH.held, wait for PATH.release, then close the
# client's connection without its answer; pass everything else), hollow (answer every POST 200
# {"header":{"revision":"10"}} without asking etcd: no responses, no "succeeded"), foreignkey (add
# the key FOREIGN, escaped as in a URL, to every answer of a range over several keys), status (answer
# every POST with the HTTP status STATUS, the body BODY and, if set, a Location header LOCATION;
# nothing reaches etcd), silent-when:PATH (pass everything until PATH exists, then read every new
# request and never answer it, and forward nothing more of a watch: a host cut off from the cluster).
# The proxy exits when its standard input ends (the test that started it is gone).
import socket, sys, threading, http.client, os, time, json, base64, plistlib, urllib.parse
listen = int(sys.argv[1]); upstream = sys.argv[2]; mode = sys.argv[3]
uphost, upport = upstream.rsplit(':', 1)
drops = [int(os.environ.get('DROPS', '1'))]
lock = threading.Lock()
dead = [False]

def readreq(f):
    line = f.readline()
    if not line: return None
    hdrs = {}
    while True:
        l = f.readline()
        if l in (b'\r\n', b'\n', b''): break
        k, v = l.decode().split(':', 1); hdrs[k.strip().lower()] = v.strip()
    n = int(hdrs.get('content-length', '0')); body = f.read(n)
    return line.split()[1].decode(), hdrs, body

def handle(c):
    f = c.makefile('rb')
    try:
        while True:
            r = readreq(f)
            if r is None: return
            path, h, body = r
            if mode == 'blackhole' or (mode == 'norange' and path == '/v3/kv/range'):
                time.sleep(3600)
            if mode == 'commit-then-blackhole' and dead[0]:
                time.sleep(3600)
            if mode.startswith('silent-when:') and os.path.exists(mode.split(':', 1)[1]):
                time.sleep(3600)
            if mode in ('hollow', 'status'):
                canned(c, path); continue
            up = http.client.HTTPConnection(uphost, int(upport), timeout=30)
            hh = {k: v for k, v in h.items() if k in ('content-type', 'authorization', 'grpc-metadata-hasleader')}
            up.request('POST', path, body, hh)
            resp = up.getresponse()
            if path == '/v3/watch':
                c.sendall(b'HTTP/1.1 %d OK\r\nTransfer-Encoding: chunked\r\n\r\n' % resp.status)
                while True:
                    d = resp.read1(65536)
                    if not d: break
                    if mode.startswith('silent-when:') and os.path.exists(mode.split(':', 1)[1]):
                        time.sleep(3600)
                    c.sendall(b'%x\r\n' % len(d) + d + b'\r\n')
                return
            data = resp.read()
            if mode == 'foreignkey' and resp.status == 200 and path in ('/v3/kv/range', '/v3/kv/txn'):
                data = foreign(path, body, data)
            w = path == '/v3/kv/txn' and (b'request_put' in body or b'request_delete_range' in body) and b'"compare":[]' not in body
            if w and mode == 'drop-commit':
                with lock:
                    go = drops[0] > 0
                    if go: drops[0] -= 1
                if go:
                    sys.stderr.write('dropped the answer to a committed txn\n'); c.close(); return
            if w and mode == 'slow-commit':
                time.sleep(float(os.environ.get('SLEEP', '3')))
            if w and mode == 'commit-then-blackhole':
                with lock: dead[0] = True
                sys.stderr.write('dropped the answer to a committed txn; answering nothing from now on\n'); c.close(); return
            if w and mode.startswith('hold-commit:'):
                with lock:
                    go = not dead[0]; dead[0] = True
                if go:
                    held = mode.split(':', 1)[1]
                    open(held + '.held', 'w').close()
                    while not os.path.exists(held + '.release'): time.sleep(0.005)
                    sys.stderr.write('dropped the answer to a committed txn after a hold\n'); c.close(); return
            c.sendall(b'HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n' % (resp.status, len(data)) + data)
    except Exception as e:
        sys.stderr.write('err %r\n' % e)
    finally:
        try: c.close()
        except Exception: pass

def canned(c, path):
    if mode == 'hollow':
        status, body, extra = 200, b'{"header":{"revision":"10"}}', b'Content-Type: application/json\r\n'
    else:
        status, body = int(os.environ['STATUS']), os.environ.get('BODY', '').encode()
        extra = b'Content-Type: text/html\r\n'
        if os.environ.get('LOCATION'): extra += b'Location: %s\r\n' % os.environ['LOCATION'].encode()
    c.sendall(b'HTTP/1.1 %d X\r\n%sContent-Length: %d\r\n\r\n' % (status, extra, len(body)) + body)

def foreign(path, body, data):
    # The key FOREIGN, with a binary plist string as its value, at the end of each answer to a range
    # over several keys (a request with a range_end).
    key = urllib.parse.unquote_to_bytes(os.environ['FOREIGN'])
    kv = {'key': base64.b64encode(key).decode(), 'value': base64.b64encode(plistlib.dumps('evil', fmt=plistlib.FMT_BINARY)).decode(),
          'create_revision': '2', 'mod_revision': '2', 'version': '1'}
    request, answer = json.loads(body), json.loads(data)
    def add(asked, got):
        if asked.get('range_end'):
            got['kvs'] = got.get('kvs', []) + [kv]; got['count'] = str(int(got.get('count', '0')) + 1)
    if path == '/v3/kv/range':
        add(request, answer)
    else:
        ops = request.get('success', []) if answer.get('succeeded') else request.get('failure', [])
        for op, response in zip(ops, answer.get('responses', [])):
            if 'request_range' in op and 'response_range' in response: add(op['request_range'], response['response_range'])
    return json.dumps(answer).encode()

def watch_stdin():
    while sys.stdin.buffer.read(4096): pass
    os._exit(0)

s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', listen)); s.listen(64)
print(s.getsockname()[1], flush=True)
threading.Thread(target=watch_stdin, daemon=True).start()
while True:
    c, _ = s.accept(); threading.Thread(target=handle, args=(c,), daemon=True).start()
