#!/usr/bin/env python3
"""Check that a released student tree holds nothing of what the reference
solutions write in their holes.

    python3 tools/check_release_leaks.py RELEASED_TREE [--solutions DIR]
    python3 tools/check_release_leaks.py --self-test

The holes are the code between "// HOLE:" and "// END HOLE" in solutions/*/*.cu
(tools/make_skeletons.py blanks them out of the student files). Every text file
of RELEASED_TREE is read as tokens (names, numbers, operators; comments
dropped, a string literal one token), so that a copy laid out on other lines is
found as well, and compared with the holes:

  - the same code: a run of SAME_RUN tokens of a hole, in order;
  - the same shape with other names: a run of SHAPE_RUN tokens that read the
    same once every name is "x" and every number "0" (a renamed copy).

A run that the course hands students anyway (the skeletons and contracts
under labs/, the harness under common/) does not count. JSON files
(mutations.json holds find/replace pairs) and notebooks are read as their
strings. Exit status: 0 clean, 1 a leak (each run is printed with the file,
its line and the hole it copies), 2 bad arguments.
tools/release_student_tree.sh runs it on every release and deletes a release
that leaks.
"""
import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Runs are counted in tokens (names, numbers, operators), so that a copy
# reformatted onto other lines is still found. Calibrated with --longest on
# this repository (2026-11-29): before the experiments' near-answers moved
# beside the solutions, lab 04's experiment shared a run of 97 tokens with a
# hole (98 renamed), lab 09's 57 (123 renamed) and mutations.json 123; after
# the move, the longest in the release is 38 (41 renamed, lab 09's
# experiment), and the tests and handouts stay at 37 or less.
SAME_RUN = 45
SHAPE_RUN = 50
TEXT_SUFFIXES = {".cu", ".cuh", ".cpp", ".hpp", ".h", ".c", ".cc", ".py", ".sh", ".md", ".rst", ".txt",
                 ".json", ".ipynb", ".cmake", ".dot", ".in", ".yml", ".yaml", ".sbatch", ""}
HOLE = re.compile(r"^\s*// HOLE:")
HINT = re.compile(r"^\s*// (HOLE|STUB)(:|$)")
END_HOLE = re.compile(r"^\s*// END HOLE\s*$")
MARKER = re.compile(r"^\s*// (SOLUTION-ONLY|STUDENT-ONLY|WALKTHROUGH|END WALKTHROUGH)")
# Kept as they are in a shape: the language's words and CUDA's built-ins tell
# code apart; the names a student or a copier chooses do not.
KEYWORDS = set("""
auto bool break case char class const constexpr continue default do double else enum false float for if
inline int long namespace nullptr return short signed sizeof static static_cast struct switch template
this true typename unsigned using void volatile while __device__ __global__ __host__ __shared__
__syncthreads __syncwarp __shfl_down_sync __shfl_up_sync __shfl_xor_sync __shfl_sync __ballot_sync
__popc __ffs __clz __ldg atomicAdd atomicSub atomicMax atomicMin atomicCAS atomicExch atomicOr atomicAnd
threadIdx blockIdx blockDim gridDim warpSize std size_t uint32_t uint64_t int32_t uint8_t uint16_t
""".split())
TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.']*|<<<|>>>|->|::|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|%="
                   r"|&=|\|=|\^=|\+\+|--|\S")
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
LINE_COMMENT = re.compile(r"//[^\n]*")
# Python, shell and CMake comments; a C++ "#include" or "#pragma" stays code.
HASH_COMMENT = re.compile(r"(?m)(?:^|(?<=\s))#(?!\s*(?:include|pragma|define|if|ifdef|ifndef|endif|else)\b)[^\n]*")
HASH_SUFFIXES = {".py", ".sh", ".cmake", ".txt", ".yml", ".yaml", ".sbatch", ""}


def tokens(text, hash_comments=False):
    """[(line number, token)] of source text, without comments; a string literal is one token."""
    text = BLOCK_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    text = STRING.sub(' "s" ', text)
    text = LINE_COMMENT.sub(" ", text)
    if hash_comments:
        text = HASH_COMMENT.sub(" ", text)
    return [(number, m.group(0)) for number, line in enumerate(text.split("\n"), start=1)
            for m in TOKEN.finditer(line)]


def shape_of(token):
    """A token as a renamed copy keeps it: names become x, numbers 0, the rest stays."""
    if token[0].isdigit():
        return "0"
    if token[0].isalpha() or token[0] == "_":
        return token if token in KEYWORDS else "x"
    return token


def holes(solutions):
    """[(where, [(line number, token)])]: each hole's code, as tokens."""
    found = []
    for path in sorted(Path(solutions).glob("*/*.cu")):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        inside, start, body = False, 0, {}
        for number, line in enumerate(lines, start=1):
            if HOLE.match(line) and not inside:
                inside, start, body = True, number, {}
            elif END_HOLE.match(line) and inside:
                inside = False
                code = [(n, token) for n, text in body.items() for _, token in tokens(text)]
                if code:
                    found.append((f"{path.parent.name}/{path.name}:{start}", code))
            elif inside and not HINT.match(line) and not MARKER.match(line):
                body[number] = line
    return found


def grams(sequence, size):
    return (tuple(sequence[i:i + size]) for i in range(len(sequence) - size + 1))


class HoleIndex:
    """The hole's runs of SAME_RUN tokens (and SHAPE_RUN shapes), less those the course hands
    students anyway (public_files: the skeletons and the harness)."""

    def __init__(self, solutions, public_files=()):
        self.same, self.shape = {}, {}
        self.count = 0
        for where, code in holes(solutions):
            self.count += 1
            words = [token for _, token in code]
            for i, run in enumerate(grams(words, SAME_RUN)):
                self.same.setdefault(run, f"{where} (its line {code[i][0]})")
            for i, run in enumerate(grams([shape_of(w) for w in words], SHAPE_RUN)):
                self.shape.setdefault(run, f"{where} (its line {code[i][0]})")
        for path in public_files:
            words = [token for _, token in file_tokens(path)]
            for run in grams(words, SAME_RUN):
                self.same.pop(run, None)
            for run in grams([shape_of(w) for w in words], SHAPE_RUN):
                self.shape.pop(run, None)


def file_tokens(path):
    """[(line number, token)] of a released file: a JSON file's or notebook's strings are read as
    code (line 0: inside a string)."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix in (".json", ".ipynb"):
        try:
            document = json.loads(raw)
        except ValueError:
            return tokens(raw)
        out = []

        def walk(value):
            if isinstance(value, str):
                out.extend((0, token) for _, token in tokens(value))
            elif isinstance(value, list):
                for item in value:
                    walk(item)
            elif isinstance(value, dict):
                for item in value.values():
                    walk(item)
        walk(document)
        return out
    return tokens(raw, hash_comments=path.suffix in HASH_SUFFIXES or path.name == "CMakeLists.txt")


def scan_file(path, index):
    """The leaks of one file: [(line, kind, hole)], one per copied run."""
    code = file_tokens(path)
    words = [token for _, token in code]
    leaks = []
    for table, kind, size, sequence in ((index.same, "the same code as", SAME_RUN, words),
                                        (index.shape, "the same code, renamed, as", SHAPE_RUN,
                                         [shape_of(w) for w in words])):
        last_end = -1
        for i, run in enumerate(grams(sequence, size)):
            if run in table:
                if i > last_end:  # a new run, not the next window of the one reported
                    leaks.append((code[i][0], kind, table[run]))
                last_end = i + size
    return leaks


def released_files(tree):
    for path in sorted(Path(tree).rglob("*")):
        if path.is_symlink() or not path.is_file() or ".git" in path.parts:
            continue
        if path.suffix.lower() in TEXT_SUFFIXES and path.stat().st_size < (4 << 20):
            yield path


def longest_runs(tree, solutions, floor=10):
    """Per released file (besides the public ones), its longest run of one hole's tokens, in
    order, that no public file holds, as it is and renamed: what SAME_RUN and SHAPE_RUN were
    calibrated on (--longest). Runs shorter than floor are not counted."""
    public = public_files(tree)
    found = holes(solutions)
    tables = []
    for convert in (lambda w: w, shape_of):
        table = {}  # a run of floor tokens -> [(hole, offset)]
        for number, (_, code) in enumerate(found):
            for offset, gram in enumerate(grams([convert(token) for _, token in code], floor)):
                table.setdefault(gram, []).append((number, offset))
        # Each public file as one string: a run found in it is a substring.
        texts = ["\x1f" + "\x1f".join(convert(token) for _, token in file_tokens(p)) + "\x1f" for p in public]
        tables.append((convert, table, texts))
    public = set(public)
    rows = []
    for path in released_files(tree):
        if path in public:
            continue
        code = file_tokens(path)
        best = []
        for convert, table, texts in tables:
            words = [convert(token) for _, token in code]
            longest, runs = 0, {}
            for i, gram in enumerate(grams(words, floor)):
                # runs: (hole, offset) -> how many windows in a row ended here, along that hole.
                runs = {(h, o): runs.get((h, o - 1), 0) + 1 for h, o in table.get(gram, ())}
                for count in runs.values():
                    length = count + floor - 1
                    if length > longest:
                        run = "\x1f" + "\x1f".join(words[i + floor - length:i + floor]) + "\x1f"
                        if not any(run in text for text in texts):
                            longest = length
            best.append(longest)
        if any(best):
            rows.append((best[0], best[1], str(path.relative_to(tree))))
    print(" same renamed  file (its longest run of a hole's code, in tokens)")
    for same, shape, name in sorted(rows, key=lambda row: (-row[1], -row[0], row[2])):
        print(f"{same:5d} {shape:8d}  {name}")
    return 0


def public_files(tree):
    """What the course hands every student on purpose: the lab files the students write in (the
    skeletons and contracts, labs/<folder>/<base>.cu and .cuh), the shared harness (common/) and the
    libraries it bundles (third_party/). A
    run of a hole that is there too (lab 08's skeleton gives the warp scan that lab 06 asks for)
    is no leak of this release's making: make_skeletons.py decides what a skeleton holds."""
    tree = Path(tree)
    found = [p for top in ("common", "third_party") for p in (tree / top).rglob("*")
             if p.suffix in (".cu", ".cuh", ".cpp", ".hpp", ".h")]
    for folder in sorted((tree / "labs").glob("*")):
        found += [p for p in folder.glob("*") if p.suffix in (".cu", ".cuh") and p.name != "experiment.cu"]
    return [p for p in found if p.is_file() and not p.is_symlink()]


def check(tree, solutions):
    tree = Path(tree)
    public = public_files(tree)
    index = HoleIndex(solutions, public)
    if index.count == 0:
        print(f"check_release_leaks: {solutions} has no // HOLE: regions; give the solutions folder "
              "of the tree the release was made from (--solutions)", file=sys.stderr)
        return 2
    public = set(public)
    problems = []
    checked = 0
    for path in released_files(tree):
        if path in public:
            continue
        checked += 1
        leaks = scan_file(path, index)
        same_at = {line for line, kind, _ in leaks if "renamed" not in kind}
        for line, kind, hole in leaks:
            if "renamed" in kind and line in same_at:
                continue  # the same place, already reported as a copy
            where = f"{path.relative_to(tree)}:{line}" if line else f"{path.relative_to(tree)} (in a string)"
            problems.append(f"  {where}: {kind} the hole at solutions/{hole}")
    if problems:
        print(f"Leak check: {len(problems)} place(s) of {tree} hold code of the solutions' holes "
              f"(a run of {SAME_RUN} tokens, or {SHAPE_RUN} with other names):")
        print("\n".join(problems))
        print("Move that code beside the solutions (solutions/<lab>/) or out of the release, then release again.")
        return 1
    print(f"Leak check: none of the {checked} files of {tree} (besides the skeletons and common/) shares "
          f"a run of {SAME_RUN} tokens ({SHAPE_RUN} renamed) with the {index.count} holes of the solutions.")
    return 0


SELF_TEST_HOLE = """\
__global__ void block_sums(const int* in, int* partials, std::size_t n) {
  // HOLE: each block sums its part of in into partials[blockIdx.x]
  __shared__ int partial[256];
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = partial[0];
  // END HOLE
}
"""
# The hole above, laid out on other lines and renamed: what a copier who hides a copy writes.
SELF_TEST_RENAMED = """\
__global__ void tree(const int* src, int* out, std::size_t count) {
  __shared__ int s[512];
  const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x
                        + threadIdx.x;
  s[threadIdx.x] = k < count ? src[k] : 0;  // load
  __syncthreads();
  for (unsigned half = blockDim.x / 4; half > 0; half /= 2) {
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 1) out[blockIdx.x] = s[0];
}
"""


def self_test():
    """A planted copy (as it is, renamed, or in a JSON string) is found; the clean tree, and the
    same code in a public file, pass."""
    body = SELF_TEST_HOLE.splitlines()[2:-2]
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        (scratch / "solutions/01-x").mkdir(parents=True)
        (scratch / "solutions/01-x/x.cu").write_text(SELF_TEST_HOLE)
        tree = scratch / "release"
        (tree / "labs/01-x").mkdir(parents=True)
        (tree / "labs/01-x/x.cu").write_text("__global__ void block_sums(const int* in, int* partials, "
                                             "std::size_t n) {\n  // TODO(1): each block sums its part\n}\n")
        failures = []

        def expect(status, what):
            print(f"-- {what}:")
            if check(tree, scratch / "solutions") != status:
                failures.append(what)

        expect(0, "the clean tree")
        planted = tree / "labs/01-x/experiment.cu"
        planted.write_text("// planted, laid out on one line\n__global__ void k(const int* in, int* partials, "
                           "std::size_t n) {" + " ".join(line.strip() for line in body) + "}\n")
        expect(1, "a copy laid out otherwise")
        planted.write_text(SELF_TEST_RENAMED)
        expect(1, "a renamed copy")
        planted.unlink()
        (tree / "tools").mkdir()
        (tree / "tools/mutations.json").write_text(json.dumps([{"find": "\n".join(body), "replace": ""}]))
        expect(1, "a copy inside a JSON string")
        (tree / "tools/mutations.json").unlink()
        (tree / "common").mkdir()
        (tree / "common/harness.cu").write_text("\n".join(body))
        (tree / "labs/01-x/experiment.cu").write_text("\n".join(body))
        expect(0, "code the harness hands students too")
    if failures:
        print("check_release_leaks self-test FAILED: wrong verdict on " + "; ".join(failures), file=sys.stderr)
        return 1
    print("check_release_leaks self-test: copies as they are, renamed and in JSON are found; a clean tree "
          "and public code pass.")
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", nargs="?", help="the released tree (a folder)")
    parser.add_argument("--solutions", default=str(ROOT / "solutions"),
                        help="the reference solutions whose holes must not leak (default: this tree's)")
    parser.add_argument("--self-test", action="store_true", help="check that a planted fragment is found")
    parser.add_argument("--longest", action="store_true",
                        help="print each file's longest run shared with a hole (tokens as they are, renamed)")
    args = parser.parse_args(argv)
    if args.self_test:
        return self_test()
    if not args.tree:
        parser.print_usage(sys.stderr)
        print("check_release_leaks: give the released tree's folder", file=sys.stderr)
        return 2
    if not Path(args.tree).is_dir():
        print(f"check_release_leaks: {args.tree} is not a folder", file=sys.stderr)
        return 2
    if args.longest:
        return longest_runs(Path(args.tree), Path(args.solutions))
    return check(Path(args.tree), Path(args.solutions))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
