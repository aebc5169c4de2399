#!/usr/bin/env python3
"""Writes hostile-paths.json: generated paths every runtime must refuse in every argument
position (view.path, create.path, str_replace.path, insert.path, delete.path,
rename.old_path, rename.new_path) with the exact message and zero store operations.

Each entry is built for one rule; `classify` (an independent reading of the brief's
rule order: length, prefix, escape, empty, control, format, nfc, segment) then names
the rule that fires FIRST and the exact message, and the build asserts that it agrees
with what the generator meant (or with the deliberate override, e.g. a long path that
is also non-prefixed is `length`).

Run: python3 tests/conformance/gen_hostile.py   (rewrites hostile-paths.json next to it)
"""
import json
import os
import re
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = "/memories"
SLASHLIKE = "\u2215\u2044\u29f8"


# ---------------------------------------------------------------- the rules

def pct_escapes_bad(s):
    """True if some percent-escape, decoded at any depth, is '.', '/', '\\' or an overlong
    UTF-8 lead (%c0, %c1, %e0%8x/%9x, %f0%8x)."""
    for _ in range(16):
        if re.search(r"%(2e|2f|5c)", s, re.I) or re.search(r"%u00(2e|2f|5c)", s, re.I):
            return True
        if re.search(r"%c[01]", s, re.I) or re.search(r"%e0%[89][0-9a-f]", s, re.I) \
                or re.search(r"%f0%8[0-9a-f]", s, re.I):
            return True
        nxt = re.sub(r"%u([0-9a-f]{4})|%([0-9a-f]{2})",
                     lambda m: chr(int(m.group(1) or m.group(2), 16)), s, flags=re.I)
        if nxt == s:
            return False
        s = nxt
    return True


def shown(p):
    return "".join(f"<U+{ord(c):04X}>" if unicodedata.category(c) in ("Cc", "Cf") else c
                   for c in p)


def classify(raw):
    """(rule, message) for a path that must be refused, or None if it is legal."""
    n = len(raw.encode("utf-8"))
    if n > 1024:
        return "length", f"Path is too long: {n:,} bytes, over the limit of 1,024 bytes"
    p = raw[:-1] if raw.endswith("/") else raw
    if not (p == ROOT or p.startswith(ROOT + "/")):
        return "prefix", f"Path must start with /memories, got: {raw}"
    segs = p.split("/")[2:]
    if ("\\" in p or any(c in p for c in SLASHLIKE) or any(s in (".", "..") for s in segs)
            or pct_escapes_bad(p)
            or any(unicodedata.normalize("NFKC", s) in (".", "..")
                   or "/" in unicodedata.normalize("NFKC", s)
                   or "\\" in unicodedata.normalize("NFKC", s) for s in segs)):
        return "escape", f"Path {raw} would escape /memories directory"
    if any(s == "" for s in segs):
        return "empty", f"Path {p} has an empty segment (//), which is not allowed"
    for c in p:
        if unicodedata.category(c) == "Cc":
            return "control", (f"Path {shown(p)} contains the control character "
                               f"U+{ord(c):04X}, which is not allowed")
    for c in p:
        if unicodedata.category(c) == "Cf":
            return "format", (f"Path {shown(p)} contains the invisible format character "
                              f"U+{ord(c):04X}, which is not allowed")
    if not unicodedata.is_normalized("NFC", p):
        return "nfc", (f"Path {p} is not in Unicode NFC form; use the composed (NFC) form "
                       "of the name")
    for s in segs:
        b = len(s.encode("utf-8"))
        if b > 255:
            return "segment", f"Path {p} has a name of {b:,} bytes, over the limit of 255 bytes"
    return None


# ---------------------------------------------------------------- generation

OUT = []
SEEN = set()
PROBLEMS = []


def add(path, rule):
    if path in SEEN:
        return
    SEEN.add(path)
    got = classify(path)
    if got is None or got[0] != rule:
        PROBLEMS.append(f"{path[:80]!r}: meant {rule}, classify says {got and got[0]}")
        return
    OUT.append({"path": path, "rule": rule, "message": got[1]})


def positions(tok):
    """A segment-level trick in every position of a path under /memories."""
    return [
        f"/memories/{tok}",
        f"/memories/{tok}/x",
        f"/memories/{tok}/notes.md",
        f"/memories/a/{tok}",
        f"/memories/a/{tok}/b.txt",
        f"/memories/a/b/c/{tok}/d",
        f"/memories/{tok}/{tok}/etc/passwd",
        f"/memories/{tok}/memories_backup/x",
    ]


# ---- escape: dot segments, raw and disguised (the token is the whole segment)
DOTS = [
    "..", ".",
    "%2e%2e", "%2E%2E", "%2e%2E", "%2E%2e", ".%2e", "%2e.", ".%2E", "%2E.", "%2e", "%2E",
    "%252e%252e", "%252E%252E", "%252e.", ".%252e", "%252e",
    "%25252e%25252e", "%25252E", "%2525252e%2525252e", "%252525252e",
    "%25%32%65%25%32%65", "%25%32%45",
    "%c0%ae%c0%ae", "%C0%AE%C0%AE", "%c0%ae", "%c0%2e", "%c0%ae.", ".%c0%ae",
    "%e0%80%ae%e0%80%ae", "%E0%80%AE", "%f0%80%80%ae", "%F0%80%80%AE%F0%80%80%AE",
    "%c1%ae", "%25c0%25ae%25c0%25ae",
    "%u002e%u002e", "%U002E%U002E", "%u002E", "%u002e.", ".%u002e", "%25u002e%25u002e",
    "\uff0e\uff0e", "\uff0e", ".\uff0e", "\uff0e.",
    "\u2024\u2024", "\u2024", "\u2024.", ".\u2024", "\u2025",
    "\ufe52\ufe52", "\ufe52", "\ufe52.", "\ufe52\uff0e", "\u2024\ufe52", "\uff0e\u2024",
]
for t in DOTS:
    for p in positions(t):
        add(p, "escape")
# trailing and doubled forms of the raw ones
for p in ["/memories/..", "/memories/../", "/memories/./", "/memories/.", "/memories/a/..",
          "/memories/a/../", "/memories/a/./", "/memories/../..", "/memories/../../..",
          "/memories/../../../etc/passwd", "/memories/./../x", "/memories/a/b/../../../x",
          "/memories/..;/x", "/memories/..?/x"]:
    if classify(p) and classify(p)[0] == "escape":
        add(p, "escape")

# ---- escape: separators and encodings of them anywhere in a segment
SEPS = [
    "a\\b", "\\", "..\\", "..\\..\\x", "\\..", "a\\", "\\a",
    "%2f", "%2F", "a%2fb", "..%2f", "..%2F", "..%2f..%2f", "%2e%2e%2f", "%2E%2E%2F",
    "%252f", "%252F", "..%252f", "%25252f", "%5c", "%5C", "a%5cb", "..%5c", "%255c", "%255C",
    "%c0%af", "%C0%AF", "..%c0%af", "%c1%9c", "%C1%9C", "..%c1%9c", "%c0%5c",
    "%e0%80%af", "%E0%80%AF", "%e0%81%9c", "%f0%80%80%af", "%e0%9f%bf",
    "%u002f", "%U002F", "%u005c", "%U005C", "..%u002f",
    "file%2etxt", "notes%2Emd", "x%252etxt", "a%u002eb", "a%c0%aeb",
    # escapes assembled by an earlier decoding pass: %%32%65 -> %2e -> .
    "%%32%65", "%%32e", "%2%65", "%2%2e", "%%32%45%%32%45", "%%32f", "%2%66", "%%35%63", "%5%63",
    "%25%32%66", "%25%35%43", "%%%32%35%32%65",
    "\uff0f", "a\uff0fb", "..\uff0f", "\uff3c", "a\uff3cb", "..\uff3c", "\ufe68", "a\ufe68b",
    "\u2215", "a\u2215b", "..\u2215..", "\u2044", "a\u2044b", "\u29f8", "a\u29f8b",
    "\u2100", "\u2101", "\u2105", "\u2106", "x\u2100y",
]
for t in SEPS:
    for p in positions(t):
        add(p, "escape")

# ---- prefix: siblings, relative forms, case, encodings before the root
PREFIX = [
    "", "/", "//", "///", "memories", "memories/", "memories/x", "memories/notes.md",
    "/memoriesx", "/memoriesx/", "/memories_backup", "/memories_backup/x", "/memories-old/x",
    "/memories.bak/x", "/memories../x", "/memories..", "/memories.", "/memories~/x",
    "/Memories", "/Memories/x", "/MEMORIES/x", "/memorieS/x", "/mem/x", "/memorie", "/memorie/s",
    "/memories%2f", "/memories%2fx", "/memories%2F..%2Fetc", "/memories%00", "/memories%20",
    "/memories\\", "/memories\\x", "/memories\\..\\x", "\\memories\\x", "\\memories",
    "/memories\u2215x", "/memories\uff0fx", "/memories\u2044x", "/memories\u29f8x",
    "./memories/x", "../memories/x", "/../memories/x", "/./memories/x", "//memories/x",
    "/tmp/memories/x", "/etc/passwd", "/", "C:\\memories\\x",
    "c:/memories/x", "file:///memories/x", "~/memories", "~/memories/x", " /memories/x",
    "/memories /x", "/ memories/x", "/memories\u00a0/x", "/\u200bmemories/x", "/memories\u200b",
    "/memo\u200bries/x", "/mem\uff4fries/x", "\uff0fmemories/x", "%2fmemories%2fx",
    "/%6demories/x", "/%6Demories", "/memorie%73/x", "/memories\ud7ff", "/\u0000memories",
    "\u0000/memories/x", "/memories\u0301/x", "/memorie\u0073\u0307/x", "/ｍemories/x",
    "/memories/../../etc".replace("/memories/", "/memoriez/"), "http://x/memories/a",
    "/root/memories", "/home/user/memories/x", "/var/lib/memdir/memories/x",
]
for p in PREFIX:
    add(p, "prefix")
for c in list(range(0x00, 0x20)) + [0x7F] + list(range(0x80, 0xA0)):
    add(f"/memories{chr(c)}/x", "prefix")
    add(f"{chr(c)}/memories/x", "prefix")
for c in [0x200B, 0x200D, 0x202E, 0xFEFF, 0x00AD, 0x2060]:
    add(f"/memories{chr(c)}/x", "prefix")
# trailing-slash siblings
for p in ["/memoriesx/", "/memories_backup/", "/Memories/", "/memories..//", "/memories.//x/"]:
    add(p, "prefix")

# ---- empty segments
EMPTY = ["/memories//", "/memories//a", "/memories//a/b", "/memories/a//b", "/memories/a//",
         "/memories///", "/memories///a", "/memories/a/b//c/d", "/memories/a//b//c",
         "/memories//.hidden", "/memories/a/b/c//", "/memories//notes.md",
         "/memories/x///y", "/memories////", "/memories/a//b/"]
for p in EMPTY:
    add(p, "empty")
for name in ["notes.md", ".h", "\u00e9", "d\u0301", "a\u0000", "x\u200b", "...", "a b"]:
    for tmpl in ["/memories//{n}", "/memories/{n}//", "/memories/{n}//{n}", "/memories/d//{n}/x"]:
        p = tmpl.format(n=name)
        r = classify(p)
        add(p, "empty")

# ---- control characters: every C0, DEL, every C1, in every position
CC = list(range(0x00, 0x20)) + [0x7F] + list(range(0x80, 0xA0))
for c in CC:
    ch = chr(c)
    for p in [f"/memories/a{ch}b", f"/memories/{ch}", f"/memories/{ch}/x",
              f"/memories/dir/file{ch}", f"/memories/{ch}.md"]:
        add(p, "control")
# control wins over format, nfc and segment length, and shown marks every Cc/Cf char
for p in ["/memories/\u200b\u0001", "/memories/\u202ea\u0000b", "/memories/e\u0301\u0007",
          "/memories/" + "a" * 300 + "\u0000", "/memories/\u0085\u2060",
          "/memories/a\tb\nc", "/memories/\u0000\u0000", "/memories/\u0009notes.md",
          "/memories/%00", "/memories/a\r/b"]:
    r = classify(p)
    if p == "/memories/%00":
        continue   # a literal "%00" is legal text: not hostile
    add(p, "control")

# ---- format characters (Cf)
CF = ([0x00AD] + list(range(0x0600, 0x0606)) + [0x061C, 0x06DD, 0x070F, 0x180E]
      + list(range(0x200B, 0x2010)) + list(range(0x202A, 0x202F)) + list(range(0x2060, 0x2065))
      + list(range(0x2066, 0x2070)) + [0xFEFF, 0xFFF9, 0xFFFA, 0xFFFB, 0x110BD]
      + list(range(0x1D173, 0x1D17B)) + [0xE0001, 0xE0020, 0xE0041, 0xE007F])
for c in CF:
    ch = chr(c)
    assert unicodedata.category(ch) == "Cf", hex(c)
    for p in [f"/memories/a{ch}b", f"/memories/{ch}", f"/memories/{ch}/x",
              f"/memories/notes.md{ch}"]:
        add(p, "format")
# format wins over nfc and segment length; a Cf next to dots is not a dot segment
for p in ["/memories/e\u0301\u200b", "/memories/" + "b" * 300 + "\u200d",
          "/memories/.\u200b", "/memories/..\u200b", "/memories/\u200b..", "/memories/\u00ad..",
          "/memories/.\ufeff", "/memories/\u202e/txt.exe", "/memories/a\u200b/b\u200c/c\u200d"]:
    add(p, "format")

# ---- not NFC
NFC = ["e\u0301", "cafe\u0301.md", "a\u0308", "A\u030a", "n\u0303", "c\u0327", "o\u0302\u0301",
       "a\u0301\u0323", "\u212b", "\u2126", "\u212a", "\u0344", "\u0340", "\u0341", "\u0343",
       "\u0374", "\u037e", "\u0387", "\u1100\u1161", "\u1100\u1161\u11a8", "\uf900", "\uf9d1",
       "\u0958", "\u2000", "\u2001", "\u1f71", "\u1fee", "\u0041\u0300",
       "\u0055\u0308\u0301", "\u00fc\u0301".replace("\u00fc", "u\u0308")]
for t in NFC:
    assert not unicodedata.is_normalized("NFC", t), repr(t)
    for p in [f"/memories/{t}", f"/memories/{t}.txt", f"/memories/dir/{t}",
              f"/memories/{t}/file"]:
        add(p, "nfc")
add("/memories/" + "e\u0301" * 100, "nfc")   # nfc is reported before the 255-byte limit

# ---- segment over 255 bytes
LONGNAMES = ["a" * 256, "a" * 257, "a" * 300, "x" * 1000, "\u00e9" * 128, "\u20ac" * 86,
             "\U0001f600" * 64, "a" * 254 + "\u00e9", "a" * 255 + "b", "\u65e5" * 86,
             "a" * 253 + "\u20ac", ".a" + "b" * 254, "\u00e9" * 127 + "ab"]
for t in LONGNAMES:
    assert len(t.encode()) > 255
    for tmpl in ["/memories/{t}", "/memories/d/{t}", "/memories/{t}/f", "/memories/a/b/{t}/c"]:
        p = tmpl.format(t=t)
        if len(p.encode()) <= 1024:
            add(p, "segment")
add("/memories/" + "a" * 255 + "/" + "b" * 256, "segment")

# ---- whole path over 1,024 bytes (checked first, so every other trick is hidden)
def pad_path(total, seg="b", prefix="/memories"):
    """A path of exactly `total` bytes with segments of <= 200 bytes."""
    parts, size = [prefix], len(prefix.encode())
    while size < total:
        take = min(200, total - size - 1)
        if take <= 0:
            parts[-1] += seg
            size += 1
            continue
        parts.append(seg * take)
        size += 1 + take
    p = "/".join(parts)
    assert len(p.encode()) == total, (total, len(p.encode()))
    return p

add(pad_path(65536), "length")
for n in [1025, 1026, 1027, 1100, 1500, 2048, 4096]:
    add(pad_path(n), "length")
    add(pad_path(n, prefix="/tmp"), "length")
    add(pad_path(n, prefix="/memories/.."), "length")
    add(pad_path(n, prefix="/memories/\u0000"), "length")
    add(pad_path(n, prefix="/memories/\u202e"), "length")
    add(pad_path(n, prefix="/memories//x"), "length")
for p in ["/memories/" + "a" * 1015, "/memories/" + "a" * 2000, "/" + "x" * 2000,
          "x" * 1025, "/memories/" + "../" * 400, "/memories/" + "%2e%2e%2f" * 200,
          "/memories/" + "\u00e9" * 508, "/memories/" + "\U0001f600" * 254,
          "/memories/" + "\u200b" * 400, "/memories/" + "e\u0301" * 340,
          "\\" * 1025, "." * 1025, "/" * 1025, "/memories" + "/" * 1016]:
    add(p, "length")
add("/memories/" + "\u00e9" * 507 + "a", "length")         # 10 + 1014 + 1 = 1025
add("/memories/" + "/".join(["c" * 250] * 4) + "/" + "d" * 11, "length")   # 1025

# ---- cross-rule ordering: the first failing rule wins
for p, rule in [
    ("/tmp/../x", "prefix"), ("/memories_backup/../x", "prefix"), ("memories/../x", "prefix"),
    ("/Memories/\u0000", "prefix"), ("/x/\u202e", "prefix"), ("/memoriesx//", "prefix"),
    ("/memories/..//x", "escape"), ("/memories//..", "escape"), ("/memories/..\u0000", "control"),
    ("/memories/\u0000/..", "escape"), ("/memories/a\\\u200b", "escape"),
    ("/memories/e\u0301/..", "escape"), ("/memories/" + "a" * 300 + "/..", "escape"),
    ("/memories//\u0000", "empty"), ("/memories/\u202e//", "empty"), ("/memories/e\u0301//x", "empty"),
    ("/memories//" + "a" * 300, "empty"),
]:
    add(p, rule)

# ---------------------------------------------------------------- output

assert not PROBLEMS, "\n".join(PROBLEMS)
RULES = ["length", "prefix", "escape", "empty", "control", "format", "nfc", "segment"]
counts = {r: sum(1 for e in OUT if e["rule"] == r) for r in RULES}
assert all(counts.values()), counts
with open(os.path.join(HERE, "hostile-paths.json"), "w", encoding="utf-8") as f:
    f.write('{"paths": [\n')
    f.write(",\n".join(json.dumps(e, ensure_ascii=True) for e in OUT))
    f.write("\n]}\n")
print(f"wrote {len(OUT)} hostile paths:", ", ".join(f"{r} {counts[r]}" for r in RULES))
