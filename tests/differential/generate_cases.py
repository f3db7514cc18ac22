"""Writes edge-case and mutated .safetensors files for the differential test (seeded)."""
import struct, random, os, json, sys
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
out = sys.argv[2] if len(sys.argv) > 2 else '/tmp/diff/cases'
os.makedirs(out, exist_ok=True)
for f in os.listdir(out): os.remove(os.path.join(out, f))
cases = []
def add(raw, data_len=None, n=None, data=None):
    if isinstance(raw, str): raw = raw.encode('utf-8', 'surrogatepass')
    if data is None: data = bytes(data_len or 0)
    nn = len(raw) if n is None else n
    cases.append(struct.pack('<Q', nn) + raw + data)

T = lambda d, s, o: {"dtype": d, "shape": s, "data_offsets": o}
edge = [
 '{}', ' {}', '{} ', '\t{}\n', '{"__metadata__":null}', '{"__metadata__":{}}', '{"__metadata__":{"a":"b"},"__metadata__":{}}',
 '{"__metadata__":{"a":1}}', '{"__metadata__":[]}', '{"__metadata__":{"a":"b","a":"c"}}',
 '[]', '""', 'null', '1', '{"a":1}', '{"a":null}', '{"a":[]}', '{"a":{}}',
 '{"a":["F32",[1],[0,4]]}', '{"a":["F32",[1],[0,4],1]}', '{"a":["F32",[1]]}',
 '{"a":{"dtype":{"F32":null},"shape":[1],"data_offsets":[0,4]}}',
 '{"a":{"dtype":{"F32":{}},"shape":[1],"data_offsets":[0,4]}}',
 '{"a":{"dtype":{"F32":[]},"shape":[1],"data_offsets":[0,4]}}',
 '{"a":{"dtype":{"F32":1},"shape":[1],"data_offsets":[0,4]}}',
 '{"a":{"dtype":{"F32":null,"U8":null},"shape":[1],"data_offsets":[0,4]}}',
 '{"a":{"dtype":{},"shape":[1],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"dtype":"F32"}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"extra":{"x":[1,2,{"y":null}]}}}',
 '{"a":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[-0],"data_offsets":[0,0]}}',
 '{"a":{"dtype":"F32","shape":[1e0],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[18446744073709551616],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[18446744073709551615],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[4611686018427387904, 4],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[4611686018427387904],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4,4]}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":{"0":0,"1":4}}}',
 '{"a":{"dtype":"f32","shape":[1],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"x":{"a":1e400}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1e400}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1e-400}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":"\\ud800"}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":"\\udc00"}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":"\\ud83d\\ude00"}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":"\\u0000"}}',
 '{"a\\u0000b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},}',
 '{"a":{"dtype":"F32","shape":[1,],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}x',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}\x00',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}\x0c',
 '\ufeff{}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"U8","shape":[5],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"U8","shape":[5],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}}',
 '{"a":{"dtype":"F4","shape":[2],"data_offsets":[0,1]}}',
 '{"a":{"dtype":"F6_E3M2","shape":[4],"data_offsets":[0,3]}}',
 '{"a":{"dtype":"F6_E3M2","shape":[2],"data_offsets":[0,2]}}',
 '{"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},"b":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}}',
 '{"a":{"shape":[1],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[1]}}',
 '{"a" :{ "dtype" : "F32" , "shape" : [ 1 ] , "data_offsets" : [ 0 , 4 ] } }',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[00,4]}}',
 '{"a":{"dtype":"F32","shape":[+1],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":tru}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":"\x01"}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":"\\x"}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":"\\u12"}}',
 '{"__metadata__":{"a":"b"},"__metadata__":null}',
 '{"x":1.7976931348623157e308}', '{"x":1.7976931348623158e308}', '{"x":179769313486231599e291}', '{"x":-1.7976931348623158e308}',
 '{"x":1797693134862315708145274237317043567980705675258449965989174768031572607800285387605895586327668781715404589535143824642343213268894641827684675467035375169860499105765512820762454900903893289440758685541207267}',
 '{"x":0.0000000000000000000000000000000000000000000000000000000000000000000000001e-300}', '{"x":123456789012345678901234567890e-320}',
 '{"__metadata__":null,"__metadata__":null}',
 '{"__metadata__":{"a":null}}',
 '{"a":{"dtype":"F32","shape":null,"data_offsets":[0,4]}}',
 '{"a":{"dtype":null,"shape":[1],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":null}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"shape":[1]}}',
 '{"a":{"DTYPE":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]}}',
 '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"__metadata__":{}}}',
]
for e in edge: add(e, 4 if '"data_offsets":[0,4]' in e.replace(' ','') else 0)
for depth in (120, 125, 126, 127, 128, 129):
    inner = '[' * (depth - 2) + ']' * (depth - 2)
    add('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":%s}}' % inner, 4)
    add('{"x":%s}' % ('{"y":' * (depth-1) + '1' + '}' * (depth-1)))
# size / file length variants
base = '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
for dl in (0, 7, 8, 9): add(base, dl)
add(base, 8, n=len(base)+1); add(base, 8, n=len(base)-1); add(base, 8, n=100_000_001); add(base, 8, n=2**63)
cases.append(b''); cases.append(b'\x02\x00\x00\x00\x00\x00\x00'); cases.append(struct.pack('<Q', 0))
cases.append(struct.pack('<Q', 2) + b'{}'); cases.append(struct.pack('<Q', 2) + b'\xff\xfe')
add(b'{"a\xc0\x80":1}'); add(b'{"\xed\xa0\x80":1}'); add(b'{"\xf4\x90\x80\x80":1}')

# random mutations of valid files
dtypes = "BOOL F4 F6_E2M3 F6_E3M2 U8 I8 F8_E5M2 F8_E4M3 F8_E8M0 F8_E4M3FNUZ F8_E5M2FNUZ I16 U16 F16 BF16 I32 U32 F32 C64 F64 I64 U64".split()
bits = dict(zip(dtypes, [8,4,6,6,8,8,8,8,8,8,8,16,16,16,16,32,32,32,64,64,64,64]))
tokens = ['"dtype"','"shape"','"data_offsets"','"__metadata__"','null','{}','[]','-1','0','1.5','1e400','"F32"','"F4"',',',':','[',']','{','}','"x"',' ','\\u0000','18446744073709551616']
def valid_header():
    k = random.randint(0, 5); off = 0; d = {}
    if random.random() < 0.3: d["__metadata__"] = {"k": "v"}
    for i in range(k):
        dt = random.choice(dtypes); shape = [random.randint(0, 4) for _ in range(random.randint(0, 3))]
        cnt = 1
        for s in shape: cnt *= s
        nb = cnt * bits[dt]
        if nb % 8: shape = shape + [2] if random.random() < 0.5 else shape; cnt = 1
        cnt = 1
        for s in shape: cnt *= s
        nb = cnt * bits[dt]
        size = nb // 8 if nb % 8 == 0 else random.randint(0, 3)
        d["t%d.%s" % (i, random.choice("abc"))] = T(dt, shape, [off, off + size]); off += size
    return json.dumps(d, separators=(',', ':')), off
for _ in range(4000):
    h, off = valid_header()
    r = random.random()
    s = list(h)
    for _ in range(random.choice([0, 1, 1, 2, 3])):
        op = random.random(); pos = random.randint(0, len(s))
        if op < 0.35 and s: del s[min(pos, len(s)-1)]
        elif op < 0.7: s.insert(pos, random.choice(tokens))
        elif s: s[min(pos, len(s)-1)] = random.choice(tokens)
    hh = ''.join(s)
    if random.random() < 0.3: hh = ' ' * random.randint(1, 3) + hh
    if random.random() < 0.3: hh = hh + ' ' * random.randint(1, 7)
    dl = off + random.choice([0, 0, 0, 1, -1, 4])
    add(hh, max(0, dl))
for i, c in enumerate(cases):
    open(os.path.join(out, 'c%05d.safetensors' % i), 'wb').write(c)
print(len(cases))

# semantic mutations: numbers, dtypes, duplicates
cases2 = []
for _ in range(4000):
    h, off = valid_header()
    d = json.loads(h)
    names = [k for k in d if k != '__metadata__']
    parts = []
    for k in names:
        t = d[k]
        r = random.random()
        if r < 0.1: t['data_offsets'][random.randint(0,1)] += random.choice([-2,-1,1,2,8])
        elif r < 0.15: t['data_offsets'] = [t['data_offsets'][1], t['data_offsets'][0]]
        elif r < 0.25: t['dtype'] = random.choice(dtypes)
        elif r < 0.3 and t['shape']: t['shape'][0] = random.choice([0, 1, 2**62, 2**63, 2**64-1, 3])
        elif r < 0.35: t['shape'] = t['shape'] + [random.choice([0, 2, 2**40])]
        if t['data_offsets'][0] < 0: t['data_offsets'][0] = 0
        if t['data_offsets'][1] < 0: t['data_offsets'][1] = 0
    items = list(d.items())
    if items and random.random() < 0.2:
        k, v = random.choice(items); items.append((k, json.loads(json.dumps(v))))
        if random.random() < 0.5: items[-1][1]['shape'] = [7]
    if random.random() < 0.2:
        items.append(("z%d" % random.randint(0, 9), {"dtype": random.choice(dtypes), "shape": [0], "data_offsets": [random.choice([0, off]), random.choice([0, off])]}))
    random.shuffle(items)
    text = '{' + ','.join(json.dumps(k) + ':' + json.dumps(v, separators=(',', ':')) for k, v in items) + '}'
    raw = text.encode()
    data = bytes(max(0, off + random.choice([0, 0, 0, 1, -1])))
    cases2.append(struct.pack('<Q', len(raw)) + raw + data)
for i, c in enumerate(cases2):
    open(os.path.join(out, 's%05d.safetensors' % i), 'wb').write(c)
print(len(cases2))
