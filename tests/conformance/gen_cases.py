#!/usr/bin/env python3
"""Writes cases.json: the memory-tool conformance vectors every memdir runtime runs.

Expected strings are written out by hand from the spec (docs/spec.md) and, where it asks
only for "a clear error", memdir's own messages. The few helpers below (numbered lines,
human sizes, the directory-view walk) are an independent reading of the spec, used where
writing the text out would be error-prone (big files, paging); each helper is also
checked against hand-written literals at the bottom of this file before anything is
written.

Run: python3 tests/conformance/gen_cases.py   (rewrites cases.json next to it)
"""
import json
import os
from fractions import Fraction
from math import floor

HERE = os.path.dirname(os.path.abspath(__file__))
R = "/memories"
CASES = []


# ---------------------------------------------------------------- spec helpers

def num(lines, start=1):
    """Numbered lines: number right-aligned in 6 columns, TAB, text; joined by \\n."""
    return "\n".join(f"{n:>6}\t{l}" for n, l in enumerate(lines, start))


def commas(n):
    return f"{n:,}"


def human(n):
    """Human size: <1024 'nB'; else /1024 until <1024, K/M/G; one decimal below 10,
    whole above; nearest, halves up; 10.0 shows as 10, 1024 as 1.0 of the next unit."""
    if n < 1024:
        return f"{n}B"
    units = "KMG"
    v, i = Fraction(n), -1
    while v >= 1024 and i < len(units) - 1:
        v /= 1024
        i += 1
    if v < 10:
        tenths = floor(v * 10 + Fraction(1, 2))
        if tenths < 100:
            return f"{tenths // 10}.{tenths % 10}{units[i]}"
        return f"10{units[i]}"
    whole = floor(v + Fraction(1, 2))
    if whole >= 1024 and i + 1 < len(units):
        return f"1.0{units[i + 1]}"
    return f"{whole}{units[i]}"


def content_of(v):
    if isinstance(v, dict):
        return v["repeat"] * v["times"]
    return v


def all_dirs(files, dirs):
    out = set()
    for p in list(files) + list(dirs):
        parts = p.split("/")
        for k in range(3, len(parts) + (1 if p in dirs else 0)):
            out.add("/".join(parts[:k]))
    out.discard(R)
    return out


def dir_view_lines(P, files, dirs):
    """Entry lines of a directory view (without the header), per the spec."""
    files = {k: content_of(v) for k, v in files.items()}
    ds = all_dirs(files, dirs)

    def size(p):
        return sum(len(c.encode()) for f, c in files.items() if f.startswith(p + "/"))

    def children(p):
        names = set()
        for x in list(files) + list(ds):
            if x.startswith(p + "/"):
                names.add(x[len(p) + 1:].split("/")[0])
        return sorted(names, key=lambda s: s.encode())

    def skip(name):
        return name.startswith(".") or name == "node_modules"

    out = [f"{human(size(P))}\t{P}"]
    for c in children(P):
        if skip(c):
            continue
        cp = f"{P}/{c}"
        if cp in files:
            out.append(f"{human(len(files[cp].encode()))}\t{cp}")
            continue
        out.append(f"{human(size(cp))}\t{cp}/")
        for g in children(cp):
            if skip(g):
                continue
            gp = f"{cp}/{g}"
            if gp in files:
                out.append(f"{human(len(files[gp].encode()))}\t{gp}")
            else:
                out.append(f"{human(size(gp))}\t{gp}/")
    return out


def dir_header(P):
    return (f"Here're the files and directories up to 2 levels deep in {P}, "
            "excluding hidden items and node_modules:\n")


def file_header(P):
    return f"Here's the content of {P} with line numbers:\n"


def paged_file_view(P, content, limit, rng=None):
    """File view under a read limit: whole lines (at least one) while header+lines fit."""
    lines = content.split("\n")
    n = len(lines)
    s, e = (1, n) if rng is None else (rng[0], n if rng[1] == -1 else rng[1])
    head = file_header(P)
    shown, used = [], len(head)
    for k in range(s, e + 1):
        l = f"{k:>6}\t{lines[k - 1]}"
        add = len(l) + (1 if shown else 0)
        if shown and used + add > limit:
            break
        shown.append(l)
        used += add
    out = head + "\n".join(shown)
    b = s + len(shown) - 1
    if b < e:
        out += (f"\n[Output cut at the read limit of {commas(limit)} characters after line "
                f"{b} of {n}. To see more, view with view_range [{b + 1}, {e}].]")
    return out


def paged_dir_view(P, files, dirs, limit, rng=None):
    """A directory's listing pages like a file (memdir's rule): line 1 is P itself."""
    lines = dir_view_lines(P, files, dirs)
    n = len(lines)
    s, e = (1, n) if rng is None else (rng[0], n if rng[1] == -1 else rng[1])
    head = dir_header(P)
    shown, used = [], len(head)
    for l in lines[s - 1:e]:
        add = len(l) + (1 if shown else 0)
        if shown and used + add > limit:
            break
        shown.append(l)
        used += add
    out = head + "\n".join(shown)
    b = s + len(shown) - 1
    if b < e:
        out += (f"\n[Output cut at the read limit of {commas(limit)} characters after line "
                f"{b} of {n}. To see more, view with view_range [{b + 1}, {e}].]")
    return out


# ---------------------------------------------------------------- case builders

def canon(state):
    """Canonical before/after: `dirs` keeps only directories with no children."""
    if state is None:
        return None
    files = dict(state.get("files", {}))
    dirs = set(state.get("dirs", []))
    keep = sorted(d for d in dirs
                  if not any(x.startswith(d + "/") for x in list(files) + list(dirs)))
    out = {"files": files}
    if keep:
        out["dirs"] = keep
    return out


def case(name, inp, content, is_error=False, before=None, after=None, limits=None,
         input_text=None, no_store_ops=False):
    assert not any(c["name"] == name for c in CASES), name
    c = {"name": name}
    if limits:
        c["limits"] = limits
    c["before"] = canon(before or {"files": {}})
    if input_text is not None:
        c["input_text"] = input_text
    else:
        c["input"] = inp
    c["content"] = ("Error: " + content) if is_error else content
    c["is_error"] = is_error
    if after is not None:
        a = canon(after)
        if a != c["before"]:
            assert not is_error, f"{name}: an error must leave storage unchanged"
            c["after"] = a
    if no_store_ops:
        c["no_store_ops"] = True
    CASES.append(c)


def err(name, inp, msg, **kw):
    case(name, inp, msg, is_error=True, **kw)


def bad_input(name, inp, msg, **kw):
    """Parse-level and path-level refusals: never touch storage."""
    err(name, inp, msg, no_store_ops=True, **kw)


def st(files=None, dirs=None):
    return {"files": dict(files or {}), "dirs": list(dirs or [])}


def view(p, rng=None, **extra):
    d = {"command": "view", "path": p}
    if rng is not None:
        d["view_range"] = rng
    d.update(extra)
    return d


def create(p, t):
    return {"command": "create", "path": p, "file_text": t}


def sr(p, o, n=None, **extra):
    d = {"command": "str_replace", "path": p, "old_str": o}
    if n is not None:
        d["new_str"] = n
    d.update(extra)
    return d


def ins(p, k, t):
    return {"command": "insert", "path": p, "insert_line": k, "insert_text": t}


def delete(p):
    return {"command": "delete", "path": p}


def ren(a, b):
    return {"command": "rename", "old_path": a, "new_path": b}


NOT_EXIST_V = "The path {} does not exist. Please provide a valid path."
CMDS = "view, create, str_replace, insert, delete, rename"

# A small, varied tree used by many cases (sizes in bytes in the comments).
NOTES = "Line 1\nLine 2\nLine 3"            # 20 bytes, 3 lines
TREE = st({
    "/memories/notes.md": NOTES,            # 20
    "/memories/a.txt": "alpha\n",            # 6
    "/memories/B.md": "Bee",                 # 3
    "/memories/.hidden": "secret",           # 6
    "/memories/docs/readme.md": "read me",   # 7
    "/memories/docs/sub/deep.txt": "deep",   # 4
    "/memories/docs/sub/deeper/x.txt": "xx",  # 2
    "/memories/docs/.cache/c.bin": "0123456789",  # 10
    "/memories/docs/node_modules/m.js": "mm",  # 2
    "/memories/node_modules/pkg/index.js": "js",  # 2
}, ["/memories/empty", "/memories/docs/empty2"])  # total 62

# ================================================================ input parsing

NOT_JSON = "Invalid tool input: not valid JSON"
for i, t in enumerate(["", "{", "view", '{"command":"view"', "{'command':'view'}",
                       '{"command":"view",}', '{"command":"view","path":"/memories"} x',
                       "NaN", '{"command":"view","path":"/memories\\x"}', "   "]):
    bad_input(f"input/not-json-{i}", None, NOT_JSON, input_text=t)

NOT_OBJ = 'Invalid tool input: expected a JSON object with a "command" field'
for i, v in enumerate([[], [{"command": "view", "path": "/memories"}], 5, 1.5, "view",
                       None, True, False]):
    bad_input(f"input/not-object-{i}", v, NOT_OBJ)
bad_input("input/not-object-text-null", None, NOT_OBJ, input_text="null")
bad_input("input/not-object-text-string", None, NOT_OBJ, input_text='"view"')

for i, v in enumerate([{}, {"path": "/memories"}, {"Command": "view", "path": "/memories"}]):
    bad_input(f"input/missing-command-{i}", v, 'Invalid tool input: missing field "command"')
for i, c in enumerate([5, ["view"], {"name": "view"}, True, 1.0]):
    bad_input(f"input/command-not-string-{i}", {"command": c, "path": "/memories"},
              'Invalid tool input: field "command" must be a string')
for i, c in enumerate(["list", "VIEW", "", "view ", "memory_view", "undo", "str-replace"]):
    bad_input(f"input/unknown-command-{i}", {"command": c, "path": "/memories"},
              f'Unknown command "{c}". Expected one of: {CMDS}')

MISSING = [
    ("view", {}, "path"),
    ("create", {"file_text": "x"}, "path"),
    ("create", {"path": "/memories/x.txt"}, "file_text"),
    ("str_replace", {"old_str": "a", "new_str": "b"}, "path"),
    ("str_replace", {"path": "/memories/notes.md", "new_str": "b"}, "old_str"),
    ("insert", {"insert_line": 0, "insert_text": "x"}, "path"),
    ("insert", {"path": "/memories/notes.md", "insert_text": "x"}, "insert_line"),
    ("insert", {"path": "/memories/notes.md", "insert_line": 0}, "insert_text"),
    ("delete", {}, "path"),
    ("rename", {"new_path": "/memories/b"}, "old_path"),
    ("rename", {"old_path": "/memories/notes.md"}, "new_path"),
]
for cmd, rest, field in MISSING:
    bad_input(f"input/{cmd}-missing-{field}", dict(command=cmd, **rest),
              f'Invalid {cmd} input: missing field "{field}"',
              before=st({"/memories/notes.md": NOTES}))

S, N = "must be a string", "must be a number"
WRONG = [
    ("view", {"path": 5}, "path", S),
    ("view", {"path": ["/memories"]}, "path", S),
    ("view", {"path": {"p": "/memories"}}, "path", S),
    ("view", {"path": True}, "path", S),
    ("create", {"path": 1.5, "file_text": "x"}, "path", S),
    ("create", {"path": "/memories/x.txt", "file_text": 5}, "file_text", S),
    ("create", {"path": "/memories/x.txt", "file_text": ["a", "b"]}, "file_text", S),
    ("create", {"path": "/memories/x.txt", "file_text": False}, "file_text", S),
    ("str_replace", {"path": 1, "old_str": "a", "new_str": "b"}, "path", S),
    ("str_replace", {"path": "/memories/notes.md", "old_str": 1, "new_str": "b"}, "old_str", S),
    ("str_replace", {"path": "/memories/notes.md", "old_str": ["Line"], "new_str": "b"}, "old_str", S),
    ("str_replace", {"path": "/memories/notes.md", "old_str": "Line 1", "new_str": 1}, "new_str", S),
    ("str_replace", {"path": "/memories/notes.md", "old_str": "Line 1", "new_str": False}, "new_str", S),
    ("insert", {"path": True, "insert_line": 0, "insert_text": "x"}, "path", S),
    ("insert", {"path": "/memories/notes.md", "insert_line": "1", "insert_text": "x"}, "insert_line", N),
    ("insert", {"path": "/memories/notes.md", "insert_line": [1], "insert_text": "x"}, "insert_line", N),
    ("insert", {"path": "/memories/notes.md", "insert_line": True, "insert_text": "x"}, "insert_line", N),
    ("insert", {"path": "/memories/notes.md", "insert_line": 0, "insert_text": 7}, "insert_text", S),
    ("delete", {"path": 1}, "path", S),
    ("delete", {"path": ["/memories/notes.md"]}, "path", S),
    ("rename", {"old_path": 1, "new_path": "/memories/b"}, "old_path", S),
    ("rename", {"old_path": "/memories/notes.md", "new_path": 2}, "new_path", S),
]
for i, (cmd, rest, field, what) in enumerate(WRONG):
    bad_input(f"input/{cmd}-{field}-wrong-type-{i}", dict(command=cmd, **rest),
              f'Invalid {cmd} input: field "{field}" {what}',
              before=st({"/memories/notes.md": NOTES}))

VR = 'Invalid view input: field "view_range" must be an array of two integers'
for i, r in enumerate([[1], [], [1, 2, 3], [1.5, 2], [1, 2.5], "1,2", {"start": 1, "end": 2},
                       [1, "2"], 5, [None, 1], True, [[1, 2]]]):
    bad_input(f"input/view-range-bad-{i}", view("/memories/notes.md", r), VR,
              before=st({"/memories/notes.md": NOTES}))
bad_input("input/view-range-float-text", None, VR, before=st({"/memories/notes.md": NOTES}),
          input_text='{"command":"view","path":"/memories/notes.md","view_range":[1.0,2]}')
bad_input("input/view-range-bad-on-directory", view("/memories", [1, 2, 3]), VR)

# field order: fields (and their types) before any path rule, in the listed order
bad_input("input/order-path-type-before-missing-text", {"command": "create", "path": 5},
          'Invalid create input: field "path" must be a string')
bad_input("input/order-field-type-before-path-rule", create("/etc/passwd", 5),
          'Invalid create input: field "file_text" must be a string')
bad_input("input/order-missing-before-path-rule", {"command": "create", "path": "/etc/x"},
          'Invalid create input: missing field "file_text"')
bad_input("input/order-rename-new-type-before-old-rule", ren("/etc/x", 2),
          'Invalid rename input: field "new_path" must be a string')
bad_input("input/order-insert-line-before-text", {"command": "insert", "path": "/memories/x",
                                                  "insert_line": "0"},
          'Invalid insert input: field "insert_line" must be a number')
bad_input("input/order-view-range-before-path-rule", view("/tmp", [1]), VR)
bad_input("input/order-old-str-type-before-new-missing",
          {"command": "str_replace", "path": "/memories/a", "old_str": None},
          'Invalid str_replace input: field "old_str" must be a string')

bad_input("input/order-view-path-before-view-range", {"command": "view", "path": 5, "view_range": [1]},
          'Invalid view input: field "path" must be a string')
bad_input("input/order-str-replace-old-before-new", {"command": "str_replace", "path": "/memories/a",
                                                    "old_str": 1, "new_str": 2},
          'Invalid str_replace input: field "old_str" must be a string')
bad_input("input/order-insert-line-before-text-type", {"command": "insert", "path": "/memories/a",
                                                       "insert_line": "x", "insert_text": 5},
          'Invalid insert input: field "insert_line" must be a number')
bad_input("input/order-rename-old-before-new-missing", {"command": "rename", "old_path": 1},
          'Invalid rename input: field "old_path" must be a string')
bad_input("input/order-path-missing-before-others-wrong", {"command": "create", "file_text": 1},
          'Invalid create input: missing field "path"')

# extra fields ignored, nulls that mean "absent"
case("input/extra-fields-ignored", view("/memories/notes.md", foo=1, bar=[1, 2]),
     file_header("/memories/notes.md") + num(NOTES.split("\n")),
     before=st({"/memories/notes.md": NOTES}))
case("input/view-range-null-is-absent", view("/memories/notes.md", None, view_range=None),
     file_header("/memories/notes.md") + num(NOTES.split("\n")),
     before=st({"/memories/notes.md": NOTES}))
case("input/create-extra-fields-ignored",
     {"command": "create", "path": "/memories/x.txt", "file_text": "x", "mode": "overwrite"},
     "File created successfully at: /memories/x.txt",
     after=st({"/memories/x.txt": "x"}))

EMPTY_OLD = 'Invalid str_replace input: field "old_str" must not be empty'
bad_input("input/str-replace-empty-old-str", sr("/memories/notes.md", "", "x"), EMPTY_OLD,
          before=st({"/memories/notes.md": NOTES}))
bad_input("input/str-replace-empty-old-str-missing-file", sr("/memories/nope.md", "", "x"),
          EMPTY_OLD)
bad_input("input/str-replace-path-rule-before-empty-old-str", sr("/memories/../x", "", "x"),
          "Path /memories/../x would escape /memories directory")

# ================================================================ path rules per command

PFX = "Path must start with /memories, got: {}"
ESC = "Path {} would escape /memories directory"
for cmd, mk in [("view", lambda p: view(p)), ("create", lambda p: create(p, "x")),
                ("str_replace", lambda p: sr(p, "a", "b")), ("insert", lambda p: ins(p, 0, "x")),
                ("delete", lambda p: delete(p)),
                ("rename-old", lambda p: ren(p, "/memories/new.md")),
                ("rename-new", lambda p: ren("/memories/notes.md", p))]:
    B = st({"/memories/notes.md": NOTES})
    bad_input(f"path/{cmd}-prefix", mk("/memories_backup/notes.md"),
              PFX.format("/memories_backup/notes.md"), before=B)
    bad_input(f"path/{cmd}-relative", mk("memories/notes.md"), PFX.format("memories/notes.md"),
              before=B)
    bad_input(f"path/{cmd}-traversal", mk("/memories/../etc/passwd"),
              ESC.format("/memories/../etc/passwd"), before=B)
    bad_input(f"path/{cmd}-percent", mk("/memories/%2e%2e/notes.md"),
              ESC.format("/memories/%2e%2e/notes.md"), before=B)
    bad_input(f"path/{cmd}-backslash", mk("/memories/a\\notes.md"),
              ESC.format("/memories/a\\notes.md"), before=B)

bad_input("path/prefix-empty-string", view(""), PFX.format(""))
bad_input("path/prefix-memoriesx", create("/memoriesx", "x"), PFX.format("/memoriesx"))
bad_input("path/prefix-case", view("/Memories/notes.md"), PFX.format("/Memories/notes.md"))
bad_input("path/prefix-checked-before-escape", view("/../memories/x"), PFX.format("/../memories/x"))
bad_input("path/escape-dot-segment", view("/memories/./notes.md"),
          ESC.format("/memories/./notes.md"))
bad_input("path/escape-double-encoded", delete("/memories/%252e%252e/x"),
          ESC.format("/memories/%252e%252e/x"))
bad_input("path/escape-overlong", view("/memories/%c0%ae%c0%ae/x"),
          ESC.format("/memories/%c0%ae%c0%ae/x"))
bad_input("path/escape-fullwidth-dots", view("/memories/\uff0e\uff0e/x"),
          ESC.format("/memories/\uff0e\uff0e/x"))
bad_input("path/escape-division-slash", create("/memories/a\u2215b", "x"),
          ESC.format("/memories/a\u2215b"))
bad_input("path/empty-segment", create("/memories//a.txt", "x"),
          "Path /memories//a.txt has an empty segment (//), which is not allowed")
bad_input("path/empty-segment-escape-first", view("/memories//../x"),
          ESC.format("/memories//../x"))
bad_input("path/control-nul", create("/memories/a\u0000b.txt", "x"),
          "Path /memories/a<U+0000>b.txt contains the control character U+0000, which is not allowed")
bad_input("path/control-newline", view("/memories/a\nb"),
          "Path /memories/a<U+000A>b contains the control character U+000A, which is not allowed")
bad_input("path/control-before-format", view("/memories/\u200bx\u007f"),
          "Path /memories/<U+200B>x<U+007F> contains the control character U+007F, which is not allowed")
bad_input("path/format-bidi-override", create("/memories/txt.\u202eexe", "x"),
          "Path /memories/txt.<U+202E>exe contains the invisible format character U+202E, which is not allowed")
bad_input("path/format-zero-width-space", view("/memories/no\u200btes.md"),
          "Path /memories/no<U+200B>tes.md contains the invisible format character U+200B, which is not allowed")
bad_input("path/format-supplementary-tag", view("/memories/a\U000e0041"),
          "Path /memories/a<U+E0041> contains the invisible format character U+E0041, which is not allowed")
bad_input("path/nfc-decomposed", create("/memories/cafe\u0301.md", "x"),
          "Path /memories/cafe\u0301.md is not in Unicode NFC form; use the composed (NFC) form of the name")
bad_input("path/nfc-angstrom-sign", view("/memories/\u212b"),
          "Path /memories/\u212b is not in Unicode NFC form; use the composed (NFC) form of the name")
bad_input("path/segment-256-bytes", create("/memories/" + "a" * 256, "x"),
          f"Path /memories/{'a' * 256} has a name of 256 bytes, over the limit of 255 bytes")
bad_input("path/segment-multibyte-256-bytes", create("/memories/d/" + "\u00e9" * 128, "x"),
          f"Path /memories/d/{chr(0xe9) * 128} has a name of 256 bytes, over the limit of 255 bytes")
LONG = "/memories/" + "/".join(["b" * 200] * 5) + "/xyzab"   # 10 + 1004 + 6 = 1020
assert len(LONG.encode()) == 1020
bad_input("path/length-1025-bytes", create(LONG + "cdefg", "x"),
          "Path is too long: 1,025 bytes, over the limit of 1,024 bytes")
bad_input("path/length-checked-first", view("/tmp/" + "../" * 400),
          "Path is too long: 1,205 bytes, over the limit of 1,024 bytes")
bad_input("path/rename-old-checked-before-new", ren("/memories/..", "/tmp"),
          ESC.format("/memories/.."))

# legal names that look odd: refused paths must not be over-broad
for i, (name, why) in enumerate([
        ("...", "three dots are a name"), ("..a", "dot-dot prefix"), ("a..b", "inner dots"),
        (".a", "hidden"), ("a\uff0eb", "NFKC a.b is a plain name"), ("100%", "bare percent"),
        ("a%41b", "percent-escape of a letter is literal"), ("%zz", "not an escape"),
        ("sp ace", "space"), ("\u00e9t\u00e9.md", "NFC accents"), ("\u65e5\u672c.txt", "CJK"),
        ("~", "tilde"), ("a:b", "colon"), ("a" * 255, "255-byte name"),
        ("\u2026", "ellipsis: NFKC ... is a name"), ("\u2488", "NFKC 1. is a name"),
        ("\uff46\uff49\uff4c\uff45", "fullwidth letters are NFC"), ("\u3002", "ideographic full stop"),
        ("%2", "incomplete escape"), ("%c2%ae", "a valid two-byte escape, not overlong"),
        ("%e0%a0%80", "e0 followed by a0 is not overlong"), ("%u0041", "escape of a letter"),
        ("a\u00a0b", "no-break space is neither Cc nor Cf"), ("\u00e9" * 127 + "a", "255 bytes of accents"),
]):
    p = "/memories/" + name
    case(f"path/legal-name-{i}", create(p, why), f"File created successfully at: {p}",
         after=st({p: why}))
P1024 = "/memories/" + "/".join(["c" * 250] * 4) + "/" + "d" * 10   # 10+1003+1+10 = 1024
assert len(P1024.encode()) == 1024
case("path/legal-path-exactly-1024-bytes", create(P1024, "x"),
     f"File created successfully at: {P1024}", after=st({P1024: "x"}))

# ================================================================ view: directories

DV = dir_header(R)
case("view/dir-empty-root", view(R), DV + "0B\t/memories")
case("view/dir-root-trailing-slash", view("/memories/"), DV + "0B\t/memories")
TREE_VIEW = DV + "\n".join([
    "62B\t/memories",
    "3B\t/memories/B.md",
    "6B\t/memories/a.txt",
    "25B\t/memories/docs/",
    "0B\t/memories/docs/empty2/",
    "7B\t/memories/docs/readme.md",
    "6B\t/memories/docs/sub/",
    "0B\t/memories/empty/",
    "20B\t/memories/notes.md",
])
case("view/dir-tree-two-levels-sorted-hidden-skipped", view(R), TREE_VIEW, before=TREE)
case("view/dir-subdirectory", view("/memories/docs"), dir_header("/memories/docs") + "\n".join([
    "25B\t/memories/docs",
    "0B\t/memories/docs/empty2/",
    "7B\t/memories/docs/readme.md",
    "6B\t/memories/docs/sub/",
    "4B\t/memories/docs/sub/deep.txt",
    "2B\t/memories/docs/sub/deeper/",
]), before=TREE)
case("view/dir-subdirectory-trailing-slash", view("/memories/docs/sub/"),
     dir_header("/memories/docs/sub") + "\n".join([
         "6B\t/memories/docs/sub",
         "4B\t/memories/docs/sub/deep.txt",
         "2B\t/memories/docs/sub/deeper/",
         "2B\t/memories/docs/sub/deeper/x.txt",
     ]), before=TREE)
case("view/dir-empty-subdirectory", view("/memories/empty"),
     dir_header("/memories/empty") + "0B\t/memories/empty", before=TREE)
case("view/dir-only-hidden-counts-in-size", view(R), DV + "6B\t/memories",
     before=st({"/memories/.secret": "abcdef"}))
case("view/dir-hidden-dir-skipped-with-contents", view(R), DV + "\n".join([
    "12B\t/memories", "1B\t/memories/v.txt"]),
    before=st({"/memories/.git/HEAD": "ref", "/memories/.git/objects/ab/cd": "1234567",
               "/memories/v.txt": "v", "/memories/.e/f": "f"}))
case("view/dir-node-modules-skipped-at-both-levels", view(R), DV + "\n".join([
    "8B\t/memories", "5B\t/memories/app/", "1B\t/memories/app/main.js"]),
    before=st({"/memories/node_modules/x/y.js": "yy", "/memories/app/node_modules/z.js": "zzzz",
               "/memories/app/main.js": "m", "/memories/node_modules/q": "q",
               "/memories/.n/node_modules": ""}))
case("view/dir-byte-order-sort", view(R), DV + "\n".join([
    "12B\t/memories", "1B\t/memories/A", "1B\t/memories/Z", "1B\t/memories/_",
    "1B\t/memories/a", "2B\t/memories/a b", "5B\t/memories/a.txt", "1B\t/memories/z",
    "0B\t/memories/\u00e9/"]),
    before=st({"/memories/a": "1", "/memories/Z": "1", "/memories/z": "1", "/memories/A": "1",
               "/memories/_": "1", "/memories/a.txt": "12345", "/memories/a b": "12"},
              ["/memories/\u00e9"]))
case("view/dir-directory-sorted-among-files", view(R), DV + "\n".join([
    "6B\t/memories", "2B\t/memories/a/", "1B\t/memories/a/x", "1B\t/memories/a/y/",
    "1B\t/memories/a-b", "3B\t/memories/a.b"]),
    before=st({"/memories/a/x": "1", "/memories/a/y/z": "2", "/memories/a.b": "333",
               "/memories/a-b": "4"}))
case("view/dir-grandchild-directories-not-expanded", view(R), DV + "\n".join([
    "4B\t/memories", "4B\t/memories/l1/", "4B\t/memories/l1/l2/"]),
    before=st({"/memories/l1/l2/l3/l4/f": "four"}))
case("view/dir-unicode-sizes-are-utf8-bytes", view(R), DV + "\n".join([
    "19B\t/memories", "4B\t/memories/emoji", "6B\t/memories/h\u00e9llo", "9B\t/memories/\u65e5\u672c\u8a9e"]),
    before=st({"/memories/h\u00e9llo": "h\u00e9llo", "/memories/emoji": "\U0001f600",
               "/memories/\u65e5\u672c\u8a9e": "\u65e5\u672c\u8a9e"}))
# memdir's rule: `view_range` on a directory selects lines of its listing (line 1 is
# the directory itself), so a listing cut at the read limit pages like a file.
case("view/dir-with-view-range-selects-listing-lines", view(R, [2, 3]),
     DV + "\n".join(["2B\t/memories/a/", "2B\t/memories/a/x"]),
     before=st({"/memories/a/x": "xx", "/memories/b": "bbb"}))
case("view/dir-with-view-range-to-the-end", view("/memories/a/", [2, -1]),
     dir_header("/memories/a") + "\n".join(["2B\t/memories/a/x", "1B\t/memories/a/y"]),
     before=st({"/memories/a/x": "xx", "/memories/a/y": "y"}))
case("view/dir-with-view-range-first-out-of-range", view(R, [5, -1]),
     "Invalid `view_range`: [5, -1]. Its first element `5` should be within the range of lines "
     "of the listing: [1, 3]",
     is_error=True, before=st({"/memories/a": "a", "/memories/b": "b"}))
case("view/dir-with-view-range-second-out-of-range", view(R, [1, 4]),
     "Invalid `view_range`: [1, 4]. Its second element `4` should be within the range of lines "
     "of the listing: [1, 3], or -1 for the last line",
     is_error=True, before=st({"/memories/a": "a", "/memories/b": "b"}))
case("view/dir-with-view-range-reversed", view(R, [3, 2]),
     "Invalid `view_range`: [3, 2]. Its second element `2` should not be less than its first "
     "element `3`; the valid range is [1, 3]",
     is_error=True, before=st({"/memories/a": "a", "/memories/b": "b"}))
case("view/dir-hidden-directory-itself-viewable", view("/memories/.cfg"),
     dir_header("/memories/.cfg") + "\n".join(["5B\t/memories/.cfg", "2B\t/memories/.cfg/a",
                                               "3B\t/memories/.cfg/sub/",
                                               "3B\t/memories/.cfg/sub/b"]),
     before=st({"/memories/.cfg/a": "aa", "/memories/.cfg/sub/b": "bbb"}))

# human sizes at the rounding edges (one file, so the dir and the file show the same size)
SIZES = [(0, "0B"), (1, "1B"), (1023, "1023B"), (1024, "1.0K"), (1075, "1.0K"), (1076, "1.1K"),
         (1280, "1.3K"), (1536, "1.5K"), (1792, "1.8K"), (2304, "2.3K"), (10188, "9.9K"),
         (10189, "10K"), (10239, "10K"), (10240, "10K"), (10751, "10K"), (10752, "11K"),
         (12800, "13K"), (102400, "100K"), (1048063, "1023K"), (1048064, "1.0M"),
         (1048575, "1.0M"), (1048576, "1.0M"), (1572864, "1.5M")]
for n, h in SIZES:
    assert human(n) == h, (n, human(n), h)
    lim = {"max_file_bytes": 2_000_000} if n > 102_400 else None
    case(f"view/dir-size-{n}-bytes", view(R), DV + f"{h}\t/memories\n{h}\t/memories/f",
         before=st({"/memories/f": {"repeat": "x", "times": n}}), limits=lim)
# directory sizes summed across many files
case("view/dir-size-sum-of-files-beneath", view(R), DV + "\n".join([
    "2.0K\t/memories", "2.0K\t/memories/d/", "1023B\t/memories/d/a", "1B\t/memories/d/b",
    "1.0K\t/memories/d/e/"]),
    before=st({"/memories/d/a": {"repeat": "a", "times": 1023}, "/memories/d/b": "b",
               "/memories/d/e/f/g": {"repeat": "g", "times": 1000},
               "/memories/d/e/.h": {"repeat": "h", "times": 24}}))

# ================================================================ view: files

FV = file_header("/memories/notes.md")
B = st({"/memories/notes.md": NOTES})
case("view/file-whole", view("/memories/notes.md"),
     FV + "     1\tLine 1\n     2\tLine 2\n     3\tLine 3", before=B)
case("view/file-trailing-slash-canonical", view("/memories/notes.md/"),
     FV + "     1\tLine 1\n     2\tLine 2\n     3\tLine 3", before=B)
case("view/file-empty", view("/memories/e.txt"),
     file_header("/memories/e.txt") + "     1\t", before=st({"/memories/e.txt": ""}))
case("view/file-trailing-newline-last-line-empty", view("/memories/t.txt"),
     file_header("/memories/t.txt") + "     1\ta\n     2\tb\n     3\t",
     before=st({"/memories/t.txt": "a\nb\n"}))
case("view/file-only-newline", view("/memories/t.txt"),
     file_header("/memories/t.txt") + "     1\t\n     2\t", before=st({"/memories/t.txt": "\n"}))
case("view/file-crlf-kept-in-line", view("/memories/w.txt"),
     file_header("/memories/w.txt") + "     1\ta\r\n     2\tb\r", before=st({"/memories/w.txt": "a\r\nb\r"}))
case("view/file-tabs-and-unicode", view("/memories/u.md"),
     file_header("/memories/u.md") + "     1\t\tcaf\u00e9 \u65e5\u672c\n     2\t\U0001f600",
     before=st({"/memories/u.md": "\tcaf\u00e9 \u65e5\u672c\n\U0001f600"}))
case("view/file-hidden-viewable-directly", view("/memories/.hidden"),
     file_header("/memories/.hidden") + "     1\tsecret", before=TREE)
case("view/file-in-node-modules-viewable", view("/memories/node_modules/pkg/index.js"),
     file_header("/memories/node_modules/pkg/index.js") + "     1\tjs", before=TREE)
TEN = "\n".join(f"l{i}" for i in range(1, 13))
case("view/file-number-column-widths", view("/memories/12.txt", [9, 12]),
     file_header("/memories/12.txt") + "     9\tl9\n    10\tl10\n    11\tl11\n    12\tl12",
     before=st({"/memories/12.txt": TEN}))
case("view/file-six-digit-line-numbers", view("/memories/big.txt", [123456, 123457]),
     file_header("/memories/big.txt") + "123456\ty\n123457\ty",
     before=st({"/memories/big.txt": {"repeat": "y\n", "times": 150000}}),
     limits={"max_file_bytes": 400_000})
for rng, body in [([1, 1], "     1\tLine 1"), ([2, 3], "     2\tLine 2\n     3\tLine 3"),
                  ([2, -1], "     2\tLine 2\n     3\tLine 3"), ([3, 3], "     3\tLine 3"),
                  ([3, -1], "     3\tLine 3"), ([1, -1], num(NOTES.split("\n"))),
                  ([1, 3], num(NOTES.split("\n")))]:
    case(f"view/range-{rng[0]}-{rng[1]}", view("/memories/notes.md", rng), FV + body, before=B)
case("view/range-on-empty-file", view("/memories/e.txt", [1, 1]),
     file_header("/memories/e.txt") + "     1\t", before=st({"/memories/e.txt": ""}))

def first_el(s, e, n):
    return (f"Invalid `view_range`: [{s}, {e}]. Its first element `{s}` should be within the "
            f"range of lines of the file: [1, {n}]")

def second_lt(s, e, n):
    return (f"Invalid `view_range`: [{s}, {e}]. Its second element `{e}` should not be less "
            f"than its first element `{s}`; the valid range is [1, {n}]")

def second_gt(s, e, n):
    return (f"Invalid `view_range`: [{s}, {e}]. Its second element `{e}` should be within the "
            f"range of lines of the file: [1, {n}], or -1 for the last line")

for (s, e), msg in [((0, 1), first_el(0, 1, 3)), ((-1, -1), first_el(-1, -1, 3)),
                    ((4, 4), first_el(4, 4, 3)), ((4, -1), first_el(4, -1, 3)),
                    ((0, 9), first_el(0, 9, 3)), ((5, 2), first_el(5, 2, 3)),
                    ((2, 1), second_lt(2, 1, 3)), ((3, 2), second_lt(3, 2, 3)),
                    ((1, 0), second_lt(1, 0, 3)), ((2, -2), second_lt(2, -2, 3)),
                    ((1, 4), second_gt(1, 4, 3)), ((3, 100), second_gt(3, 100, 3))]:
    err(f"view/range-error-{s}-{e}", view("/memories/notes.md", [s, e]), msg, before=B)
err("view/range-error-empty-file-end-2", view("/memories/e.txt", [1, 2]), second_gt(1, 2, 1),
    before=st({"/memories/e.txt": ""}))
err("view/range-error-empty-file-start-2", view("/memories/e.txt", [2, 2]), first_el(2, 2, 1),
    before=st({"/memories/e.txt": ""}))
err("view/missing-file", view("/memories/nope.md"), NOT_EXIST_V.format("/memories/nope.md"), before=B)
err("view/missing-in-missing-dir", view("/memories/no/such/file"),
    NOT_EXIST_V.format("/memories/no/such/file"), before=B)
err("view/through-a-file", view("/memories/notes.md/x"), NOT_EXIST_V.format("/memories/notes.md/x"),
    before=B)
err("view/missing-with-trailing-slash", view("/memories/gone/"), NOT_EXIST_V.format("/memories/gone"))
err("view/missing-with-view-range", view("/memories/gone", [1, 2]), NOT_EXIST_V.format("/memories/gone"))

# the 999,999-line limit
LL = {"max_file_bytes": 2_000_000}
err("view/line-limit-1000000-lines", view("/memories/huge.txt"),
    "File /memories/huge.txt exceeds maximum line limit of 999,999 lines.",
    before=st({"/memories/huge.txt": {"repeat": "\n", "times": 999_999}}), limits=LL)
err("view/line-limit-with-view-range", view("/memories/huge.txt", [1, 1]),
    "File /memories/huge.txt exceeds maximum line limit of 999,999 lines.",
    before=st({"/memories/huge.txt": {"repeat": "z\n", "times": 999_999}}), limits=LL)
case("view/line-limit-999999-lines-ok", view("/memories/max.txt", [999_998, -1]),
     file_header("/memories/max.txt") + "999998\t\n999999\t",
     before=st({"/memories/max.txt": {"repeat": "\n", "times": 999_998}}), limits=LL)

# paging at the read limit
P10 = "\n".join(f"line {i:02}" for i in range(1, 11))   # ten lines "line 01".."line 10"
PB = st({"/memories/p.txt": P10})
HP = len(file_header("/memories/p.txt"))
assert HP == 57
# each numbered line is 6+1+7 = 14 chars, plus a \n between lines
for L, b in [(HP + 14, 1), (HP + 14 * 3 + 2, 3), (HP + 14 * 3 + 3, 3), (HP + 14 * 3 + 1, 2),
             (HP + 14 * 10 + 9, 10), (HP + 14 * 10 + 8, 9), (10, 1), (1, 1)]:
    exp = FVp = paged_file_view("/memories/p.txt", P10, L)
    lines = [f"{k:>6}\tline {k:02}" for k in range(1, b + 1)]
    hand = file_header("/memories/p.txt") + "\n".join(lines)
    if b < 10:
        hand += (f"\n[Output cut at the read limit of {L} characters after line {b} of 10. "
                 f"To see more, view with view_range [{b + 1}, 10].]")
    assert exp == hand, (L, exp, hand)
    case(f"view/paging-file-limit-{L}", view("/memories/p.txt"), exp, before=PB,
         limits={"read_limit_chars": L})
case("view/paging-file-with-view-range", view("/memories/p.txt", [4, 8]),
     file_header("/memories/p.txt") + "     4\tline 04\n     5\tline 05\n"
     "[Output cut at the read limit of 90 characters after line 5 of 10. "
     "To see more, view with view_range [6, 8].]",
     before=PB, limits={"read_limit_chars": 90})
case("view/paging-file-with-view-range-to-end", view("/memories/p.txt", [4, -1]),
     file_header("/memories/p.txt") + "     4\tline 04\n     5\tline 05\n"
     "[Output cut at the read limit of 90 characters after line 5 of 10. "
     "To see more, view with view_range [6, 10].]",
     before=PB, limits={"read_limit_chars": 90})
case("view/paging-file-next-page", view("/memories/p.txt", [6, 10]),
     file_header("/memories/p.txt") + "     6\tline 06\n     7\tline 07\n"
     "[Output cut at the read limit of 90 characters after line 7 of 10. "
     "To see more, view with view_range [8, 10].]",
     before=PB, limits={"read_limit_chars": 90})
case("view/paging-file-last-page-fits", view("/memories/p.txt", [9, -1]),
     file_header("/memories/p.txt") + "     9\tline 09\n    10\tline 10",
     before=PB, limits={"read_limit_chars": 90})
# the read limit counts characters (Unicode scalar values), not bytes
UB = st({"/memories/u.txt": "\u00e9\u00e9\u00e9\u00e9\n\u00e9\u00e9\u00e9\u00e9\n\u00e9\u00e9\u00e9\u00e9"})
case("view/paging-counts-characters-not-bytes", view("/memories/u.txt"),
     file_header("/memories/u.txt") + "     1\t\u00e9\u00e9\u00e9\u00e9\n     2\t\u00e9\u00e9\u00e9\u00e9\n"
     "[Output cut at the read limit of 80 characters after line 2 of 3. "
     "To see more, view with view_range [3, 3].]",
     before=UB, limits={"read_limit_chars": 80})   # 57 + 11 + 1 + 11 = 80 chars (88 bytes)
case("view/paging-counts-astral-as-one-character", view("/memories/u.txt"),
     file_header("/memories/u.txt") + "     1\t\U0001f600\U0001f600\n     2\t\U0001f600\U0001f600\n"
     "[Output cut at the read limit of 76 characters after line 2 of 3. "
     "To see more, view with view_range [3, 3].]",
     before=st({"/memories/u.txt": "\U0001f600\U0001f600\n\U0001f600\U0001f600\n\U0001f600\U0001f600"}),
     limits={"read_limit_chars": 76})   # 57 + 9 + 1 + 9 = 76 chars (not 80 UTF-16 units)
BIGP = {"repeat": "x\n", "times": 15000}
case("view/paging-file-default-limit-100000", view("/memories/big.txt"),
     paged_file_view("/memories/big.txt", "x\n" * 15000, 100_000),
     before=st({"/memories/big.txt": BIGP}))
assert "read limit of 100,000 characters after line 11104 of 15001" in CASES[-1]["content"], \
    CASES[-1]["content"][-200:]
case("view/paging-file-under-default-limit", view("/memories/big.txt", [11105, -1]),
     paged_file_view("/memories/big.txt", "x\n" * 15000, 100_000, (11105, -1)),
     before=st({"/memories/big.txt": BIGP}))
assert "Output cut" not in CASES[-1]["content"]

DP = st({f"/memories/f{i}": "x" for i in range(1, 7)})
HD = len(dir_header(R))
assert HD == 109
for L in [HD + 12, HD + 12 + 16, HD + 12 + 5 * 16, HD + 12 + 6 * 16, HD + 12 + 6 * 16 - 1, 5]:
    exp = paged_dir_view(R, DP["files"], [], L)
    case(f"view/paging-dir-limit-{L}", view(R), exp, before=DP, limits={"read_limit_chars": L})
assert CASES[-1]["content"] == DV + "6B\t/memories\n[Output cut at the read limit of 5 characters after line 1 of 7. To see more, view with view_range [2, 7].]"
case("view/paging-dir-two-levels", view(R),
     DV + "3B\t/memories\n3B\t/memories/d/\n"
     "[Output cut at the read limit of 140 characters after line 2 of 5. "
     "To see more, view with view_range [3, 5].]",
     before=st({"/memories/d/a": "a", "/memories/d/b": "b", "/memories/d/c": "c"}),
     limits={"read_limit_chars": 140})
case("view/paging-dir-the-next-page", view(R, [3, 5]),
     DV + "1B\t/memories/d/a\n[Output cut at the read limit of 140 characters after line 3 of 5. "
     "To see more, view with view_range [4, 5].]",
     before=st({"/memories/d/a": "a", "/memories/d/b": "b", "/memories/d/c": "c"}),
     limits={"read_limit_chars": 140})
assert CASES[-1]["content"] == paged_dir_view(R, {"/memories/d/a": "a", "/memories/d/b": "b", "/memories/d/c": "c"}, [], 140, (3, 5))

# ================================================================ create

case("create/simple", create("/memories/new.md", "hello"),
     "File created successfully at: /memories/new.md", before=B,
     after=st({"/memories/notes.md": NOTES, "/memories/new.md": "hello"}))
case("create/empty-content", create("/memories/e", ""), "File created successfully at: /memories/e",
     after=st({"/memories/e": ""}))
case("create/makes-missing-parents", create("/memories/a/b/c/d.txt", "d"),
     "File created successfully at: /memories/a/b/c/d.txt", after=st({"/memories/a/b/c/d.txt": "d"}))
case("create/in-existing-empty-dir", create("/memories/empty/x", "x"),
     "File created successfully at: /memories/empty/x",
     before=st({}, ["/memories/empty"]), after=st({"/memories/empty/x": "x"}))
case("create/trailing-slash-canonical", create("/memories/t.txt/", "t"),
     "File created successfully at: /memories/t.txt", after=st({"/memories/t.txt": "t"}))
case("create/hidden-file", create("/memories/.env", "K=V"),
     "File created successfully at: /memories/.env", after=st({"/memories/.env": "K=V"}))
case("create/content-kept-exactly", create("/memories/raw", "a\r\n\tb\n\n\u0000\u00e9\U0001f600 "),
     "File created successfully at: /memories/raw",
     after=st({"/memories/raw": "a\r\n\tb\n\n\u0000\u00e9\U0001f600 "}))
case("create/unicode-name", create("/memories/\u00fcber/\u65e5\u8a18.md", "x"),
     "File created successfully at: /memories/\u00fcber/\u65e5\u8a18.md",
     after=st({"/memories/\u00fcber/\u65e5\u8a18.md": "x"}))
case("create/sibling-of-file-with-same-prefix", create("/memories/notes.md.bak", "b"),
     "File created successfully at: /memories/notes.md.bak", before=B,
     after=st({"/memories/notes.md": NOTES, "/memories/notes.md.bak": "b"}))
err("create/existing-file-unchanged", create("/memories/notes.md", "other"),
    "File /memories/notes.md already exists", before=B)
err("create/existing-file-trailing-slash", create("/memories/notes.md/", "other"),
    "File /memories/notes.md already exists", before=B)
err("create/existing-directory", create("/memories/docs", "x"), "File /memories/docs already exists",
    before=TREE)
err("create/existing-empty-directory", create("/memories/empty", "x"),
    "File /memories/empty already exists", before=TREE)
err("create/root", create("/memories", "x"), "Cannot create /memories: it is the memory directory itself")
err("create/root-trailing-slash", create("/memories/", "x"),
    "Cannot create /memories: it is the memory directory itself", before=B)
err("create/parent-is-file", create("/memories/notes.md/x", "x"),
    "Cannot create /memories/notes.md/x: /memories/notes.md is a file, not a directory", before=B)
err("create/ancestor-is-file", create("/memories/docs/readme.md/a/b.txt", "x"),
    "Cannot create /memories/docs/readme.md/a/b.txt: /memories/docs/readme.md is a file, not a directory",
    before=TREE)

def too_big(p, n, m):
    return (f"Cannot write {p}: the content would be {commas(n)} bytes, over the limit of "
            f"{commas(m)} bytes per file. Nothing was written.")

def over_quota(p, t, q):
    return (f"Cannot write {p}: the memory directory would hold {commas(t)} bytes, over its quota "
            f"of {commas(q)} bytes. Nothing was written.")

case("create/size-at-limit", create("/memories/s", "0123456789"),
     "File created successfully at: /memories/s", limits={"max_file_bytes": 10},
     after=st({"/memories/s": "0123456789"}))
bad_input("create/size-over-limit", create("/memories/s", "0123456789A"), too_big("/memories/s", 11, 10),
          limits={"max_file_bytes": 10})
bad_input("create/size-counts-utf8-bytes", create("/memories/s", "\u00e9\u00e9\u00e9"),
          too_big("/memories/s", 6, 5), limits={"max_file_bytes": 5})
case("create/size-utf8-at-limit", create("/memories/s", "\u00e9\u00e9"),
     "File created successfully at: /memories/s", limits={"max_file_bytes": 4},
     after=st({"/memories/s": "\u00e9\u00e9"}))
bad_input("create/size-with-thousands-commas", create("/memories/s", "y" * 1001),
          too_big("/memories/s", 1001, 1000), limits={"max_file_bytes": 1000})
bad_input("create/size-default-limit-102400", create("/memories/s", "z" * 102_401),
          too_big("/memories/s", 102_401, 102_400))
case("create/size-default-limit-exact", create("/memories/s", "z" * 102_400),
     "File created successfully at: /memories/s", after=st({"/memories/s": "z" * 102_400}))
bad_input("create/size-checked-before-existence", create("/memories/notes.md", "x" * 21),
          too_big("/memories/notes.md", 21, 20), before=B, limits={"max_file_bytes": 20})
QB = st({"/memories/q1": "0123456789", "/memories/q2": "01234"})   # 15 bytes
case("create/quota-exactly-full", create("/memories/q3", "abcde"),
     "File created successfully at: /memories/q3", before=QB, limits={"max_total_bytes": 20},
     after=st({**QB["files"], "/memories/q3": "abcde"}))
err("create/quota-exceeded", create("/memories/q3", "abcdef"), over_quota("/memories/q3", 21, 20),
    before=QB, limits={"max_total_bytes": 20})
err("create/quota-counts-hidden-files", create("/memories/q3", "a"), over_quota("/memories/q3", 16, 15),
    before=st({"/memories/.q1": "0123456789", "/memories/q2": "01234"}),
    limits={"max_total_bytes": 15})
err("create/quota-with-thousands-commas", create("/memories/q", "x" * 600),
    over_quota("/memories/q", 1100, 1000), before=st({"/memories/p": "y" * 500}),
    limits={"max_total_bytes": 1000})

# ================================================================ str_replace

ED = "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
SEVEN = "\n".join(f"L{i}" for i in range(1, 8))      # L1..L7
S7 = st({"/memories/s.txt": SEVEN})
case("str_replace/single-line", sr("/memories/notes.md", "Line 2", "Changed"),
     ED + "     1\tLine 1\n     2\tChanged\n     3\tLine 3", before=B,
     after=st({"/memories/notes.md": "Line 1\nChanged\nLine 3"}))
case("str_replace/snippet-middle-two-either-side", sr("/memories/s.txt", "L4", "X"),
     ED + "     2\tL2\n     3\tL3\n     4\tX\n     5\tL5\n     6\tL6", before=S7,
     after=st({"/memories/s.txt": "L1\nL2\nL3\nX\nL5\nL6\nL7"}))
case("str_replace/snippet-clipped-at-start", sr("/memories/s.txt", "L1", "first"),
     ED + "     1\tfirst\n     2\tL2\n     3\tL3", before=S7,
     after=st({"/memories/s.txt": SEVEN.replace("L1", "first")}))
case("str_replace/snippet-clipped-at-end", sr("/memories/s.txt", "L7", "last"),
     ED + "     5\tL5\n     6\tL6\n     7\tlast", before=S7,
     after=st({"/memories/s.txt": SEVEN.replace("L7", "last")}))
case("str_replace/part-of-line", sr("/memories/s.txt", "5", "five"),
     ED + "     3\tL3\n     4\tL4\n     5\tLfive\n     6\tL6\n     7\tL7", before=S7,
     after=st({"/memories/s.txt": SEVEN.replace("L5", "Lfive")}))
case("str_replace/multi-line-old", sr("/memories/s.txt", "L3\nL4\nL5", "M"),
     ED + "     1\tL1\n     2\tL2\n     3\tM\n     4\tL6\n     5\tL7", before=S7,
     after=st({"/memories/s.txt": "L1\nL2\nM\nL6\nL7"}))
case("str_replace/multi-line-new-extends-snippet", sr("/memories/s.txt", "L2", "a\nb\nc"),
     ED + "     1\tL1\n     2\ta\n     3\tb\n     4\tc\n     5\tL3\n     6\tL4", before=S7,
     after=st({"/memories/s.txt": "L1\na\nb\nc\nL3\nL4\nL5\nL6\nL7"}))
case("str_replace/old-spans-newline-at-start", sr("/memories/s.txt", "\nL6", ""),
     ED + "     3\tL3\n     4\tL4\n     5\tL5\n     6\tL7", before=S7,
     after=st({"/memories/s.txt": "L1\nL2\nL3\nL4\nL5\nL7"}))
case("str_replace/delete-with-empty-new-str", sr("/memories/notes.md", "Line 2\n", ""),
     ED + "     1\tLine 1\n     2\tLine 3", before=B,
     after=st({"/memories/notes.md": "Line 1\nLine 3"}))
case("str_replace/missing-new-str-is-empty", sr("/memories/notes.md", " 2"),
     ED + "     1\tLine 1\n     2\tLine\n     3\tLine 3", before=B,
     after=st({"/memories/notes.md": "Line 1\nLine\nLine 3"}))
case("str_replace/null-new-str-is-empty", sr("/memories/notes.md", " 3", None, new_str=None),
     ED + "     1\tLine 1\n     2\tLine 2\n     3\tLine", before=B,
     after=st({"/memories/notes.md": "Line 1\nLine 2\nLine"}))
for i, lit in enumerate(["$&", "$1", "$$", "$'", "$`", "\\1", "${x}", "$<n>"]):
    case(f"str_replace/new-str-literal-{i}", sr("/memories/notes.md", "Line 2", f"[{lit}]"),
         ED + f"     1\tLine 1\n     2\t[{lit}]\n     3\tLine 3", before=B,
         after=st({"/memories/notes.md": f"Line 1\n[{lit}]\nLine 3"}))
case("str_replace/old-str-regex-chars-literal", sr("/memories/r.txt", "a.*b", "X"),
     ED + "     1\taxb X", before=st({"/memories/r.txt": "axb a.*b"}),
     after=st({"/memories/r.txt": "axb X"}))
MULT = lambda o, ls: (f"No replacement was performed. Multiple occurrences of old_str `{o}` in "
                      f"lines: {ls}. Please ensure it is unique")
err("str_replace/multiple-different-lines", sr("/memories/notes.md", "Line", "X"),
    MULT("Line", "1, 2, 3"), before=B)
err("str_replace/multiple-same-line", sr("/memories/m.txt", "ab", "X"), MULT("ab", "1, 2, 2"),
    before=st({"/memories/m.txt": "ab\nab ab\ncd"}))
err("str_replace/multiple-multi-line-old", sr("/memories/m.txt", "x\ny", "Z"),
    MULT("x\ny", "1, 3"), before=st({"/memories/m.txt": "x\ny\nx\ny"}))
err("str_replace/multiple-newline-old", sr("/memories/m.txt", "\n", "Z"), MULT("\n", "1, 2"),
    before=st({"/memories/m.txt": "a\nb\nc"}))
NONE = lambda o, p: f"No replacement was performed, old_str `{o}` did not appear verbatim in {p}."
err("str_replace/not-found", sr("/memories/notes.md", "Line 4", "X"),
    NONE("Line 4", "/memories/notes.md"), before=B)
err("str_replace/not-found-case-sensitive", sr("/memories/notes.md", "line 1", "X"),
    NONE("line 1", "/memories/notes.md"), before=B)
err("str_replace/not-found-multi-line", sr("/memories/notes.md", "Line 1\nLine 3", "X"),
    NONE("Line 1\nLine 3", "/memories/notes.md"), before=B)
err("str_replace/not-found-in-empty-file", sr("/memories/e", "a"), NONE("a", "/memories/e"),
    before=st({"/memories/e": ""}))
err("str_replace/not-found-trailing-slash-canonical", sr("/memories/notes.md/", "zz", "X"),
    NONE("zz", "/memories/notes.md"), before=B)
err("str_replace/missing-file", sr("/memories/nope", "a", "b"),
    NOT_EXIST_V.format("/memories/nope"), before=B)
err("str_replace/directory", sr("/memories/docs", "a", "b"),
    NOT_EXIST_V.format("/memories/docs"), before=TREE)
err("str_replace/root-directory", sr("/memories", "a", "b"), NOT_EXIST_V.format("/memories"),
    before=TREE)
case("str_replace/whole-content", sr("/memories/notes.md", NOTES, "new"),
     ED + "     1\tnew", before=B, after=st({"/memories/notes.md": "new"}))
case("str_replace/unicode", sr("/memories/u", "\u00e9", "\U0001f600"),
     ED + "     1\tcaf\U0001f600", before=st({"/memories/u": "caf\u00e9"}),
     after=st({"/memories/u": "caf\U0001f600"}))
case("str_replace/new-str-trailing-newline", sr("/memories/s.txt", "L4", "X\n"),
     ED + "     2\tL2\n     3\tL3\n     4\tX\n     5\t\n     6\tL5\n     7\tL6", before=S7,
     after=st({"/memories/s.txt": "L1\nL2\nL3\nX\n\nL5\nL6\nL7"}))
case("str_replace/hidden-file", sr("/memories/.hidden", "secret", "s"),
     ED + "     1\ts", before=TREE, after={**TREE, "files": {**TREE["files"], "/memories/.hidden": "s"}})
err("str_replace/size-over-limit", sr("/memories/s", "3", "3456"), too_big("/memories/s", 11, 10),
    before=st({"/memories/s": "01234567"}), limits={"max_file_bytes": 10})
case("str_replace/size-at-limit", sr("/memories/s", "3", "345"), ED + "     1\t0123454567",
     before=st({"/memories/s": "01234567"}), limits={"max_file_bytes": 10},
     after=st({"/memories/s": "0123454567"}))
err("str_replace/quota-exceeded", sr("/memories/q2", "4", "456789"),
    over_quota("/memories/q2", 20, 19), before=QB, limits={"max_total_bytes": 19})
case("str_replace/shrinking-within-quota", sr("/memories/q2", "01234", "0"),
     ED + "     1\t0", before=QB, limits={"max_total_bytes": 15},
     after=st({"/memories/q1": "0123456789", "/memories/q2": "0"}))

# ================================================================ insert

IE = "The file {} has been edited."
W = st({"/memories/w.txt": "Line 1\nLine 2"})
case("insert/worked-example-line-1", ins("/memories/w.txt", 1, "Inserted Line"),
     IE.format("/memories/w.txt"), before=W,
     after=st({"/memories/w.txt": "Line 1\nInserted Line\nLine 2"}))
case("insert/worked-example-line-2-end", ins("/memories/w.txt", 2, "Inserted Line"),
     IE.format("/memories/w.txt"), before=W,
     after=st({"/memories/w.txt": "Line 1\nLine 2\nInserted Line"}))
case("insert/at-0-before-first", ins("/memories/w.txt", 0, "Top"), IE.format("/memories/w.txt"),
     before=W, after=st({"/memories/w.txt": "Top\nLine 1\nLine 2"}))
case("insert/one-trailing-newline-dropped", ins("/memories/w.txt", 1, "X\n"),
     IE.format("/memories/w.txt"), before=W, after=st({"/memories/w.txt": "Line 1\nX\nLine 2"}))
case("insert/only-one-trailing-newline-dropped", ins("/memories/w.txt", 1, "X\n\n"),
     IE.format("/memories/w.txt"), before=W, after=st({"/memories/w.txt": "Line 1\nX\n\nLine 2"}))
case("insert/multi-line-text", ins("/memories/w.txt", 1, "a\nb\nc"), IE.format("/memories/w.txt"),
     before=W, after=st({"/memories/w.txt": "Line 1\na\nb\nc\nLine 2"}))
case("insert/empty-text-is-empty-line", ins("/memories/w.txt", 1, ""), IE.format("/memories/w.txt"),
     before=W, after=st({"/memories/w.txt": "Line 1\n\nLine 2"}))
case("insert/newline-text-is-empty-line", ins("/memories/w.txt", 2, "\n"),
     IE.format("/memories/w.txt"), before=W, after=st({"/memories/w.txt": "Line 1\nLine 2\n"}))
case("insert/empty-file-at-0", ins("/memories/e", 0, "x"), IE.format("/memories/e"),
     before=st({"/memories/e": ""}), after=st({"/memories/e": "x\n"}))
case("insert/empty-file-at-1", ins("/memories/e", 1, "x"), IE.format("/memories/e"),
     before=st({"/memories/e": ""}), after=st({"/memories/e": "\nx"}))
case("insert/trailing-newline-file-before-last-empty-line", ins("/memories/t", 2, "c"),
     IE.format("/memories/t"), before=st({"/memories/t": "a\nb\n"}), after=st({"/memories/t": "a\nb\nc\n"}))
case("insert/trailing-newline-file-at-n", ins("/memories/t", 3, "c"), IE.format("/memories/t"),
     before=st({"/memories/t": "a\nb\n"}), after=st({"/memories/t": "a\nb\n\nc"}))
case("insert/crlf-text-kept", ins("/memories/w.txt", 1, "r\r\n"), IE.format("/memories/w.txt"),
     before=W, after=st({"/memories/w.txt": "Line 1\nr\r\nLine 2"}))
case("insert/trailing-slash-canonical", ins("/memories/w.txt/", 0, "T"), IE.format("/memories/w.txt"),
     before=W, after=st({"/memories/w.txt": "T\nLine 1\nLine 2"}))
case("insert/unicode", ins("/memories/w.txt", 1, "\u00e9\U0001f600"), IE.format("/memories/w.txt"),
     before=W, after=st({"/memories/w.txt": "Line 1\n\u00e9\U0001f600\nLine 2"}))
INS = lambda k, n: (f"Invalid `insert_line` parameter: {k}. It should be within the range of "
                    f"lines of the file: [0, {n}]")
err("insert/out-of-range-n-plus-1", ins("/memories/w.txt", 3, "x"), INS(3, 2), before=W)
err("insert/out-of-range-negative", ins("/memories/w.txt", -1, "x"), INS(-1, 2), before=W)
err("insert/out-of-range-large", ins("/memories/w.txt", 1000000, "x"), INS(1000000, 2), before=W)
err("insert/float", ins("/memories/w.txt", 1.5, "x"), INS("1.5", 2), before=W)
err("insert/negative-float", ins("/memories/w.txt", -0.5, "x"), INS("-0.5", 2), before=W)
err("insert/float-with-zero-fraction", None, INS("2.0", 2), before=W,
    input_text='{"command":"insert","path":"/memories/w.txt","insert_line":2.0,"insert_text":"x"}')
err("insert/empty-file-out-of-range", ins("/memories/e", 2, "x"), INS(2, 1), before=st({"/memories/e": ""}))
err("insert/missing-file", ins("/memories/nope", 0, "x"), NOT_EXIST_V.format("/memories/nope"), before=W)
err("insert/missing-file-with-float", ins("/memories/nope", 1.5, "x"), NOT_EXIST_V.format("/memories/nope"))
err("insert/directory", ins("/memories/docs", 0, "x"), NOT_EXIST_V.format("/memories/docs"), before=TREE)
err("insert/root", ins("/memories", 0, "x"), NOT_EXIST_V.format("/memories"), before=TREE)
err("insert/size-over-limit", ins("/memories/s", 1, "abc"), too_big("/memories/s", 11, 10),
    before=st({"/memories/s": "0123456"}), limits={"max_file_bytes": 10})
case("insert/size-at-limit", ins("/memories/s", 1, "ab\n"), IE.format("/memories/s"),
     before=st({"/memories/s": "0123456"}), limits={"max_file_bytes": 10},
     after=st({"/memories/s": "0123456\nab"}))
err("insert/quota-exceeded", ins("/memories/q2", 0, "abcd"), over_quota("/memories/q2", 20, 19),
    before=QB, limits={"max_total_bytes": 19})

# ================================================================ delete

case("delete/file", delete("/memories/notes.md"), "Successfully deleted /memories/notes.md",
     before=st({"/memories/notes.md": NOTES, "/memories/k": "k"}), after=st({"/memories/k": "k"}))
case("delete/last-file-leaves-empty-dir", delete("/memories/d/only.txt"),
     "Successfully deleted /memories/d/only.txt", before=st({"/memories/d/only.txt": "o"}),
     after=st({}, ["/memories/d"]))
case("delete/last-file-at-root", delete("/memories/notes.md"), "Successfully deleted /memories/notes.md",
     before=B, after=st({}))
case("delete/directory-recursive", delete("/memories/docs"), "Successfully deleted /memories/docs",
     before=TREE, after=st({k: v for k, v in TREE["files"].items() if not k.startswith("/memories/docs/")},
                           ["/memories/empty"]))
case("delete/empty-directory", delete("/memories/empty/"), "Successfully deleted /memories/empty",
     before=st({"/memories/k": "k"}, ["/memories/empty"]), after=st({"/memories/k": "k"}))
case("delete/hidden-file", delete("/memories/.hidden"), "Successfully deleted /memories/.hidden",
     before=st({"/memories/.hidden": "h", "/memories/v": "v"}), after=st({"/memories/v": "v"}))
case("delete/node-modules-dir", delete("/memories/node_modules"),
     "Successfully deleted /memories/node_modules",
     before=st({"/memories/node_modules/a/b": "b", "/memories/v": "v"}), after=st({"/memories/v": "v"}))
case("delete/nested-dir-keeps-parent", delete("/memories/a/b"), "Successfully deleted /memories/a/b",
     before=st({"/memories/a/b/c": "c", "/memories/a/b/d/e": "e"}), after=st({}, ["/memories/a"]))
case("delete/dir-prefix-sibling-untouched", delete("/memories/a"), "Successfully deleted /memories/a",
     before=st({"/memories/a/x": "1", "/memories/ab/y": "2", "/memories/a.txt": "3"}),
     after=st({"/memories/ab/y": "2", "/memories/a.txt": "3"}))
err("delete/root", delete("/memories"), "Cannot delete the /memories directory itself", before=TREE)
err("delete/root-trailing-slash", delete("/memories/"), "Cannot delete the /memories directory itself",
    before=TREE)
err("delete/root-empty-store", delete("/memories"), "Cannot delete the /memories directory itself")
err("delete/missing", delete("/memories/nope"), "The path /memories/nope does not exist", before=B)
err("delete/missing-through-file", delete("/memories/notes.md/x"),
    "The path /memories/notes.md/x does not exist", before=B)
err("delete/missing-trailing-slash", delete("/memories/gone/"), "The path /memories/gone does not exist")

# ================================================================ rename

RN = "Successfully renamed {} to {}"
case("rename/file", ren("/memories/notes.md", "/memories/n.md"),
     RN.format("/memories/notes.md", "/memories/n.md"), before=B, after=st({"/memories/n.md": NOTES}))
case("rename/file-makes-parents", ren("/memories/notes.md", "/memories/x/y/n.md"),
     RN.format("/memories/notes.md", "/memories/x/y/n.md"), before=B,
     after=st({"/memories/x/y/n.md": NOTES}))
case("rename/file-leaves-empty-source-dir", ren("/memories/d/f", "/memories/f"),
     RN.format("/memories/d/f", "/memories/f"), before=st({"/memories/d/f": "f"}),
     after=st({"/memories/f": "f"}, ["/memories/d"]))
case("rename/directory-with-contents", ren("/memories/docs", "/memories/archive/docs"),
     RN.format("/memories/docs", "/memories/archive/docs"), before=TREE,
     after=st({(k.replace("/memories/docs/", "/memories/archive/docs/", 1)): v
               for k, v in TREE["files"].items()}, ["/memories/empty", "/memories/archive/docs/empty2"]))
case("rename/empty-directory", ren("/memories/empty", "/memories/e2"),
     RN.format("/memories/empty", "/memories/e2"), before=st({}, ["/memories/empty"]),
     after=st({}, ["/memories/e2"]))
case("rename/directory-to-sibling-with-prefix-name", ren("/memories/a", "/memories/ab"),
     RN.format("/memories/a", "/memories/ab"), before=st({"/memories/a/f": "f"}),
     after=st({"/memories/ab/f": "f"}))
case("rename/directory-to-name-with-suffix", ren("/memories/a", "/memories/a.old"),
     RN.format("/memories/a", "/memories/a.old"), before=st({"/memories/a/f": "f"}),
     after=st({"/memories/a.old/f": "f"}))
case("rename/directory-up-a-level", ren("/memories/a/b", "/memories/b"),
     RN.format("/memories/a/b", "/memories/b"), before=st({"/memories/a/b/c": "c"}),
     after=st({"/memories/b/c": "c"}, ["/memories/a"]))
case("rename/trailing-slashes-canonical", ren("/memories/a/", "/memories/z/"),
     RN.format("/memories/a", "/memories/z"), before=st({"/memories/a/f": "f"}),
     after=st({"/memories/z/f": "f"}))
case("rename/to-hidden-name", ren("/memories/notes.md", "/memories/.notes.md"),
     RN.format("/memories/notes.md", "/memories/.notes.md"), before=B,
     after=st({"/memories/.notes.md": NOTES}))
case("rename/into-existing-dir", ren("/memories/notes.md", "/memories/docs/notes.md"),
     RN.format("/memories/notes.md", "/memories/docs/notes.md"),
     before=st({"/memories/notes.md": NOTES}, ["/memories/docs"]),
     after=st({"/memories/docs/notes.md": NOTES}))
case("rename/unicode", ren("/memories/notes.md", "/memories/\u00e9t\u00e9.md"),
     RN.format("/memories/notes.md", "/memories/\u00e9t\u00e9.md"), before=B,
     after=st({"/memories/\u00e9t\u00e9.md": NOTES}))
err("rename/root-old", ren("/memories", "/memories/x"), "Cannot rename the /memories directory itself",
    before=TREE)
err("rename/root-old-trailing-slash", ren("/memories/", "/memories/x"),
    "Cannot rename the /memories directory itself", before=TREE)
err("rename/root-both", ren("/memories", "/memories"), "Cannot rename the /memories directory itself")
err("rename/root-new", ren("/memories/docs", "/memories"),
    "Cannot rename /memories/docs to /memories: that is the memory directory itself", before=TREE)
err("rename/root-new-before-missing-old", ren("/memories/nope", "/memories/"),
    "Cannot rename /memories/nope to /memories: that is the memory directory itself")
# Decided before storage, so the text holds for a directory, a file, or nothing.
INTO = "Cannot rename {0} to {1}: {1} is inside {0}"
err("rename/into-itself-child", ren("/memories/docs", "/memories/docs/inner"),
    INTO.format("/memories/docs", "/memories/docs/inner"), before=TREE)
err("rename/into-itself-deep", ren("/memories/docs", "/memories/docs/sub/deeper/docs"),
    INTO.format("/memories/docs", "/memories/docs/sub/deeper/docs"), before=TREE)
err("rename/into-itself-checked-before-missing", ren("/memories/nope", "/memories/nope/x"),
    INTO.format("/memories/nope", "/memories/nope/x"))
err("rename/file-into-itself", ren("/memories/notes.md", "/memories/notes.md/x"),
    INTO.format("/memories/notes.md", "/memories/notes.md/x"), before=B)
err("rename/missing-old", ren("/memories/nope", "/memories/x"), "The path /memories/nope does not exist",
    before=B)
err("rename/missing-old-before-existing-new", ren("/memories/nope", "/memories/notes.md"),
    "The path /memories/nope does not exist", before=B)
err("rename/missing-old-through-file", ren("/memories/notes.md/x", "/memories/x"),
    "The path /memories/notes.md/x does not exist", before=B)
err("rename/destination-file-exists", ren("/memories/a.txt", "/memories/notes.md"),
    "The destination /memories/notes.md already exists", before=TREE)
err("rename/destination-dir-exists", ren("/memories/notes.md", "/memories/docs"),
    "The destination /memories/docs already exists", before=TREE)
err("rename/destination-empty-dir-exists", ren("/memories/docs", "/memories/empty"),
    "The destination /memories/empty already exists", before=TREE)
err("rename/to-itself", ren("/memories/notes.md", "/memories/notes.md"),
    "The destination /memories/notes.md already exists", before=B)
FILEP = "Cannot rename {} to {}: {} is a file, not a directory"
err("rename/destination-parent-is-file", ren("/memories/a.txt", "/memories/notes.md/a.txt"),
    FILEP.format("/memories/a.txt", "/memories/notes.md/a.txt", "/memories/notes.md"), before=TREE)
err("rename/destination-ancestor-is-file", ren("/memories/docs", "/memories/B.md/x/y"),
    FILEP.format("/memories/docs", "/memories/B.md/x/y", "/memories/B.md"), before=TREE)

# ================================================================ checks and output

# the helpers agree with hand-written literals
assert "\n".join(dir_view_lines(R, TREE["files"], TREE["dirs"])) == TREE_VIEW[len(DV):]
assert num(["a", "b"], 9) == "     9\ta\n    10\tb"
# every successful view written by hand agrees with the helpers' reading of the spec
checked = 0
for c in CASES:
    i = c.get("input")
    if c["is_error"] or not isinstance(i, dict) or i.get("command") != "view":
        continue
    files = {k: content_of(v) for k, v in c["before"]["files"].items()}
    dirs = c["before"].get("dirs", [])
    limit = c.get("limits", {}).get("read_limit_chars", 100_000)
    p = i["path"][:-1] if i["path"].endswith("/") and i["path"] != "/" else i["path"]
    if p in files:
        rng = i.get("view_range")
        got = paged_file_view(p, files[p], limit, tuple(rng) if rng else None)
    else:
        rng = i.get("view_range")
        got = paged_dir_view(p, files, dirs, limit, tuple(rng) if rng else None)
    assert got == c["content"], (c["name"], got, c["content"])
    checked += 1
assert checked > 60, checked
for c in CASES:
    b = c["before"]["files"]
    tot = sum(len(content_of(v).encode()) for v in b.values())
    lim = c.get("limits", {})
    assert tot <= lim.get("max_total_bytes", 100 * 1024 * 1024), c["name"]
    for p, v in b.items():
        assert len(content_of(v).encode()) <= lim.get("max_file_bytes", 102_400), (c["name"], p)

with open(os.path.join(HERE, "cases.json"), "w", encoding="utf-8") as f:
    json.dump({"cases": CASES}, f, ensure_ascii=False, indent=1)
    f.write("\n")
print(f"wrote {len(CASES)} cases")
