"""The LETOR file reader (ordrank.datasets.letor_file): values bit for bit as scikit-learn's parser read them
(the old reader), chunk boundaries, line ends, docids, errors with their lines, the memory check."""
import io
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numba import njit
from sklearn.datasets import load_svmlight_file

from ordrank.datasets import letor_file
from ordrank.datasets.decimal_parse import parse_number
from ordrank.datasets.letor import LetorData
from ordrank.datasets.letor_file import DOCID, LetorFormatError, load_letor

from conftest import write

AWKWARD = ["0", "-0", "+0", "0.0", "-0.000", "1", "+1.5", ".5", "-.25", "5.", "+5.", "1e-30", "3.4E+38", "-3.4e38",
           "1e22", "1e23", "9.999999999999999e22", "123456789012345", "1234567890123456", "9007199254740993",
           "0.1", "0.30000000000000004", "2.2250738585072014e-308", "4.9e-324", "1e-400", "123.456e-5", "-7.25E+2",
           "0.000001", "1000000", "12345.678901", "1E5", "00012.5000", "0e999", "1_0", "0.1e-22", "1.5e-7",
           "999999999999999", "0.000000000000000000000012", "1e+0", "-1.797e308"]


def number(rng) -> str:
    """A feature value spelled as LETOR files and printf spell them, or an awkward spelling."""
    x = rng.normal() * 10.0 ** int(rng.integers(-12, 13))
    kind = int(rng.integers(7))
    if kind == 0:
        return repr(x)  # 17 significant digits
    if kind == 1:
        return f"{x:.6f}"
    if kind == 2:
        return f"{x:.{int(rng.integers(0, 16))}{rng.choice(['e', 'E', 'g'])}}"
    if kind == 3:
        return str(int(rng.integers(-10 ** 6, 10 ** 6)))
    return str(rng.choice(AWKWARD))


def letor_text(rng, rows: int, n_features: int, dense: bool, docids: bool) -> str:
    """LF-ended lines of contiguous queries, with blank, comment and tab-separated lines mixed in."""
    out, qid = [], int(rng.integers(-5, 1000))
    for r in range(rows):
        qid += int(rng.random() < 0.3)
        some = rng.choice(n_features, min(n_features, int(rng.integers(0, 4))), replace=False) + 1
        columns = range(1, n_features + 1) if dense else sorted(some)
        sep = " " if rng.random() < 0.8 else "\t"
        label = str(rng.choice(["0", "1", "2", "4", "3.0", "+1", "1e0", "-0"]))
        line = sep.join([label, f"qid:{qid}"] + [f"{j}:{number(rng)}" for j in columns])
        out.append(line + (f" #docid = D{r}-é inc = 1" if docids else ""))
        if rng.random() < 0.1:
            out.append(str(rng.choice(["", "   ", "\t", "# a comment", "  # docid = not-a-row"])))
    return "\n".join(out) + "\n"


def oracle(data: bytes, n_features=None, dtype=np.float64):
    """What the old reader returned: scikit-learn's parser on the lines (CR and CRLF made LF), densified."""
    raw = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    X, y, qid = load_svmlight_file(io.BytesIO(raw), n_features=n_features, dtype=dtype, query_id=True,
                                   zero_based=False)
    return X.toarray(), y, qid


def assert_same(data, X, y, qid):
    assert data.X.dtype == X.dtype and data.X.shape == X.shape
    assert data.X.tobytes() == X.tobytes()  # bit for bit (0.0 and -0.0 differ)
    assert data.y.dtype == data.qid.dtype == np.int64
    assert data.y.tolist() == y.tolist() and data.qid.tolist() == qid.tolist()


@given(seed=st.integers(0, 2 ** 32 - 1), dense=st.booleans(), ending=st.sampled_from(["\n", "\r\n", "\r"]),
       trailing=st.booleans(), docids=st.booleans())
def test_values_are_bit_for_bit_those_of_scikit_learns_parser(seed, dense, ending, trailing, docids,
                                                               tmp_path_factory):
    rng = np.random.default_rng(seed)
    text = letor_text(rng, int(rng.integers(1, 40)), int(rng.integers(1, 12)), dense, docids)
    data = text.replace("\n", ending).encode()
    data = data if trailing else data.rstrip(b"\r\n")
    path = tmp_path_factory.mktemp("random") / "part.txt"
    path.write_bytes(data)
    ours = load_letor(path)
    assert_same(ours, *oracle(data))
    values = [float(v) for line in text.splitlines() for v in re.findall(r"\d+:(\S+)", line.partition("#")[0])]
    if max(map(abs, values), default=0) < 3.4e38:  # else float32 overflows: an error (next test)
        assert_same(load_letor(path, dtype=np.float32), *oracle(data, dtype=np.float32))
    wide = load_letor(path, n_features=20)
    assert_same(wide, *oracle(data, n_features=20))
    lines = [line for line in text.splitlines() if line.partition("#")[0].strip()]
    expected = [m.group(1) for line in lines if (m := DOCID.search(line.partition("#")[2]))]
    assert (ours.docid is None) if not docids else (ours.docid.tolist() == expected)


def test_awkward_numbers_one_per_column(tmp_path):
    text = "1 qid:1 " + " ".join(f"{j}:{v}" for j, v in enumerate(AWKWARD, 1)) + "\n"
    path = write(tmp_path / "a.txt", text)
    assert_same(load_letor(path), *oracle(text.encode()))
    X = load_letor(path).X
    assert not np.signbit(X[X == 0]).any()  # -0 is +0.0, as the old reader's toarray() made it
    with pytest.raises(LetorFormatError, match=r"line 1: a feature value is NaN or infinite"):
        load_letor(path, dtype=np.float32)  # -1.797e308 is beyond float32's range
    ok = [v for v in AWKWARD if abs(float(v)) < 3.4e38]
    text = "1 qid:1 " + " ".join(f"{j}:{v}" for j, v in enumerate(ok, 1)) + "\n"
    assert_same(load_letor(write(tmp_path / "b.txt", text), dtype=np.float32),
                *oracle(text.encode(), dtype=np.float32))


@pytest.mark.parametrize("chunk", [8, 13, 64, 1000])
@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_lines_across_chunk_boundaries_read_the_same(tmp_path, monkeypatch, chunk, ending):
    rng = np.random.default_rng(chunk)
    text = letor_text(rng, 60, 9, dense=True, docids=True).replace("\n", ending)
    path = write(tmp_path / "a.txt", text[:-len(ending)])  # and no line break at the end
    whole = load_letor(path)
    monkeypatch.setattr(letor_file, "CHUNK_BYTES", chunk)
    parts = load_letor(path)
    assert_same(parts, whole.X, whole.y, whole.qid)
    assert parts.docid.tolist() == whole.docid.tolist() and len(whole) == 60
    bad = text.replace(ending, ending + "0 qid:1 1:x" + ending, 1)  # line 2 (blank lines counted)
    bad = bad.replace(ending, ending + ending, 1)  # now line 3
    with pytest.raises(LetorFormatError, match=r"line 3: malformed feature '1:x'"):
        load_letor(write(tmp_path / "b.txt", bad))


def test_line_numbers_count_crlf_as_one_break_and_lone_crs(tmp_path):
    for text, line in [("0 qid:1 1:1\r\n\r\n0 qid:1 1:x\r\n", 3), ("0 qid:1 1:1\r\r0 qid:1 1:x", 3),
                       ("0 qid:1 1:1\r\r\n0 qid:1 1:x\n", 3), ("\n\r\n\r0 qid:1 1:x", 4)]:
        path = tmp_path / "a.txt"
        path.write_bytes(text.encode())
        with pytest.raises(LetorFormatError, match=f"line {line}: malformed feature '1:x'"):
            load_letor(path)


def test_blank_and_comment_lines_tabs_and_labels(tmp_path):
    path = write(tmp_path / "a.txt", "# head\n \t \n2.0\tqid:5\t2:1 # docid = a\n  +1 qid:5 1:2#docid=b\n"
                                     "1e0 qid:005 #docid = c\n# tail")
    data = load_letor(path)
    assert data.y.tolist() == [2, 1, 1] and data.qid.tolist() == [5, 5, 5]
    assert data.X.tolist() == [[0, 1], [2, 0], [0, 0]] and data.docid.tolist() == ["a", "b", "c"]


def test_docids_follow_the_old_regular_expression(tmp_path):
    path = write(tmp_path / "a.txt", "0 qid:1 1:1 # docid :x docid = y\n0 qid:1 1:1 #mydocid=5 docid = 6\n"
                                     "0 qid:1 1:1 #docid   =   GX000-00-0000000 inc = 1\n0 qid:1 #docid = dé\n")
    assert load_letor(path).docid.tolist() == ["y", "5", "GX000-00-0000000", "dé"]


def test_query_ids_at_the_int64_limits(tmp_path):
    ok = "0 qid:9223372036854775807 1:1\n0 qid:-9223372036854775808 1:1\n0 qid:-00012 1:1\n"
    assert load_letor(write(tmp_path / "a.txt", ok)).qid.tolist() == [2 ** 63 - 1, -2 ** 63, -12]
    for q in ["9223372036854775808", "-9223372036854775809", "99999999999999999999"]:
        with pytest.raises(LetorFormatError, match=f"line 2: query id {q} is beyond the 64-bit integer range"):
            load_letor(write(tmp_path / "b.txt", f"0 qid:1 1:1\n0 qid:{q} 1:1\n"))


@pytest.mark.parametrize("text, line, pattern", [
    ("0 qid:1 1:1\n0 qid:1 2147483648:1\n", 2, r"feature index 2147483648 is beyond 2147483647"),
    ("0 qid:1 1:1\n0 qid:1 99999999999999999999999:1\n", 2, r"feature index 99999999999999999999999 is beyond"),
    ("0 qid:1 1:1\n0 qid:1 3:1 -2:1\n", 2, r"feature index -2 in '-2:1': indices start at 1"),
    ("0 qid:1 1:1\n0 qid:1 3:1 3:2\n", 2, r"feature index 3 after 3: indices must increase"),
    ("0 qid:1 1:1\n0 qid:1 7:1 3:1\n", 2, r"feature index 3 after 7: indices must increase"),  # 7: not in pass 1
    ("0 qid:1 1:1\n0 qid:1 7:1 3\n", 2, r"malformed feature '3' \(expected index:value\)$"),
    ("0 qid:1 1:1\n0 qid:1 1:\n", 2, r"malformed feature '1:' \(expected index:value\)$"),
    ("0 qid:1 1:1\n0 qid:1 0:x\n", 2, r"malformed feature '0:x'"),  # a bad value before a bad index
    ("0 qid:1 1:1\n0 qid:1 1:1e400\n", 2, r"a feature value is NaN or infinite"),
    ("0 qid:1 1:1\n0 qid:1 1:inf\n", 2, r"a feature value is NaN or infinite"),
    ("0 qid:1 1:1\nnan qid:1 1:1\n", 2, r"label 'nan' is not a non-negative integer"),
    ("0 qid:1 1:1\n1e300 qid:1 1:1\n", 2, r"label '1e300' is not a non-negative integer"),
    ("0 qid:1 1:1\n1 #docid = a\n", 2, r"expected qid:<integer> after the label, got nothing"),
    ("0 qid:1 1:1\n1 qid:1.5 1:1\n", 2, r"expected qid:<integer> after the label, got 'qid:1\.5'"),
    ("0 qid:1 1:1\n1 qid: 1:1\n", 2, r"expected qid:<integer> after the label, got 'qid:'"),
    ("0 qid:1 1:1\n\n1 qid:2 1:1\n\n0 qid:1 1:2\n", 5, r"query 1 appears again after query 2 \(its rows ended at "
                                                       r"line 1\); the rows of a query must be contiguous"),
    ("0 qid:3 1:1\n0 qid:1 1:1\n0 qid:1 1:1\n1 qid:2 1:1\n0 qid:1 1:2\n0 qid:3 1:1\n", 5,
     r"query 1 appears again after query 2 \(its rows ended at line 3\)"),
])
def test_errors_name_the_line(tmp_path, text, line, pattern):
    path = write(tmp_path / "a.txt", text)
    with pytest.raises(LetorFormatError, match=re.escape(f"{path}, line {line}: ") + pattern):
        load_letor(path)


def test_x_beyond_the_memory_available_is_refused_after_earlier_bad_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(letor_file, "available_memory", lambda: 2 ** 20)  # 1 MiB
    path = write(tmp_path / "a.txt", "0 qid:1 1:1\n0 qid:1 2:1 200000:1\n0 qid:1 1:1\n")
    with pytest.raises(LetorFormatError, match=re.escape(f"{path}, line 2: X would take 0.0 GiB dense (3 rows x 200000 "
                                                         "features, the largest index 200000 being on this line), "
                                                         "more than the 0.0 GiB of memory available; is the index a "
                                                         "typo?")):
        load_letor(path)
    with pytest.raises(LetorFormatError, match=re.escape(f"{path}: X would take 0.0 GiB dense (3 rows x 300000 "
                                                         "features), more than the 0.0 GiB of memory available") + "$"):
        load_letor(path, n_features=300000)
    write(path, "0 qid:1 1:1\n1.5 qid:1 2:1 200000:1\n")  # the bad label comes first
    with pytest.raises(LetorFormatError, match=r"line 2: label '1\.5' is not"):
        load_letor(path)
    write(path, "0 qid:1 1:1\n1 qid:2 1:1\n0 qid:1 200000:1\n")  # and a query coming back
    with pytest.raises(LetorFormatError, match=r"line 3: query 1 appears again"):
        load_letor(path)


def test_each_call_reads_the_file_and_returns_read_only_arrays_it_owns(tmp_path):
    path = write(tmp_path / "a.txt", "1 qid:1 1:1 #docid = a\n")
    first = load_letor(path)
    assert first.X is not load_letor(path).X and first.X.flags.owndata and first.X.flags.c_contiguous
    assert not any(a.flags.writeable for a in (first.X, first.y, first.qid, first.docid))
    write(path, "1 qid:1 1:1 #docid = a\n0 qid:2 1:3 #docid = b\n")
    assert load_letor(path).n_queries == 2
    with pytest.raises(ValueError, match="dtype must be float32 or float64"):
        load_letor(path, dtype=np.int64)


def test_letor_data_reads_float32_when_asked(tmp_path):
    for q, part in enumerate(("train", "vali", "test")):
        write(tmp_path / "set" / "Fold1" / f"{part}.txt", f"1 qid:{q} 1:0.1 2:3\n")
    fold = LetorData(str(tmp_path / "set"), dtype="float32").fold(1)
    assert fold.train.X.dtype == np.float32 and fold.train.X.tolist() == [[np.float32(0.1), 3]]
    assert LetorData(str(tmp_path / "set")).fold(1).test.X.dtype == np.float64
    with pytest.raises(ValueError, match=r"dataset\.dtype must be float32 or float64, got 'float16'"):
        LetorData(str(tmp_path / "set"), dtype="float16")


# The grammar of valid LETOR lines, every value spelled as writers spell them: Hypothesis draws the
# lines, scikit-learn's parser is the oracle on the same bytes.
REGEX_SPACES = [c for c in map(chr, range(0x3001)) if re.match(r"\s", c) and c not in "\n\r"]
FINITE = st.floats(allow_nan=False, allow_infinity=False)
SPELLINGS = [repr, "%.18e".__mod__, "%.17g".__mod__, "%.7g".__mod__, "%.6f".__mod__, "%.25e".__mod__,
             lambda x: repr(float(np.float32(x))) if abs(x) < 3e38 else repr(x),
             lambda x: f"{x:+.12E}", lambda x: "00" + repr(abs(x)),
             lambda x: f"{x:.3e}".replace("e+", "E+0").replace("e-", "e-00")]
DIGITS = st.from_regex(r"\A[+-]?([0-9]{1,30}(\.[0-9]{0,30})?|\.[0-9]{1,30})([eE][+-]?[0-9]{1,2})?\Z")  # finite
VALUE = st.one_of(st.tuples(FINITE, st.sampled_from(SPELLINGS)).map(lambda p: p[1](p[0])), DIGITS).filter(
    lambda token: abs(float(token)) < np.inf)  # a spelling rounded up to infinity is no valid value
SPACE = st.text(st.sampled_from(REGEX_SPACES), max_size=3)


@st.composite
def letor_line(draw, qid: int, docid: bool) -> str:
    label = draw(st.sampled_from(["0", "1", "2", "4", "+3", "2.0", "1e0", "007", "-0"]))
    indices = sorted(draw(st.sets(st.integers(1, 40), max_size=6)))
    sep = draw(st.sampled_from([" ", "\t", "  "]))
    line = sep.join([label, f"qid:{qid}"] + [f"{j}:{draw(VALUE)}" for j in indices])
    if docid:
        name = draw(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r#"), min_size=1,
                            max_size=8))
        line += f" #{draw(SPACE)}docid{draw(SPACE)}={draw(SPACE)}{name}{draw(SPACE)}inc = 1"
    return line


@st.composite
def letor_file_text(draw) -> str:
    docid, qid, lines = draw(st.booleans()), draw(st.integers(-5, 99)), []
    for _ in range(draw(st.integers(1, 12))):
        qid += draw(st.integers(0, 1))
        lines.append(draw(letor_line(qid, docid)))
    return "\n".join(lines) + "\n"


def values_of(text: str) -> list[float]:
    return [float(v) for line in text.split("\n") for v in re.findall(r"\d+:(\S+)", line.partition("#")[0])]


@given(text=letor_file_text())
def test_any_spelling_reads_as_scikit_learns_parser_reads_it(text, tmp_path_factory):
    path = tmp_path_factory.mktemp("spelled") / "part.txt"
    path.write_bytes(text.encode())
    expected = [m.group(1) if (m := DOCID.search(line.partition("#")[2])) else None
                for line in text.split("\n") if line.partition("#")[0].strip()]
    if any(name is not None and "\x00" in name for name in expected):  # refused, naming its line
        with pytest.raises(ValueError, match=r"line \d+: the docid holds a NUL byte"):
            load_letor(path)
        return
    ours = load_letor(path)
    assert_same(ours, *oracle(text.encode()))
    if max(map(abs, values_of(text)), default=0) < letor_file.FLOAT32_INF:  # else an error in float32
        assert_same(load_letor(path, dtype=np.float32), *oracle(text.encode(), dtype=np.float32))
    assert (ours.docid is None) if expected[0] is None else ours.docid.tolist() == expected


@njit
def _read_all(buf, starts, ends):
    values, fast = np.empty(starts.size), np.zeros(starts.size, np.bool_)
    for k in range(starts.size):
        values[k], fast[k], end = parse_number(buf, starts[k], ends[k])
        fast[k] = fast[k] and end == ends[k]
    return values, fast


def compiled(tokens: list[str]):
    """parse_number on each token: (values, whether it read the token itself)."""
    data = " ".join(tokens).encode()
    lengths = np.array([len(t) for t in tokens])
    starts = np.r_[0, np.cumsum(lengths + 1)[:-1]]
    return _read_all(np.frombuffer(data, np.uint8), starts, starts + lengths)


@given(x=FINITE)
def test_every_float64_spelling_is_read_compiled_and_correctly_rounded(x):
    tokens = [spell(x) for spell in SPELLINGS]
    values, fast = compiled(tokens)
    expected = np.array([float(t) for t in tokens])
    assert values[fast].tobytes() == expected[fast].tobytes()
    normal = (np.abs(expected) >= np.finfo(np.float64).tiny) & np.isfinite(expected)
    short = np.array([len(t.lstrip("+-0").replace(".", "")) <= 40 for t in tokens])
    assert (fast | ~normal | ~short).all()  # only subnormals and long spellings near a halfway point go to float()


@given(token=DIGITS)
def test_decimal_strings_are_read_exactly(token):
    values, fast = compiled([token])
    if fast[0]:
        assert values.tobytes() == np.array([float(token)]).tobytes()


def test_halfway_and_double_rounding_cases_match_scikit_learn(tmp_path):
    cases = ["9007199254740993", "9007199254740993.0000000000000000001", "5578527905016441.5", "5578527905016442.5",
             "1.0000000596046447753906250001", "1.0000000596046447753906249999", "0.1", "1e23", "8.5e-323",
             "2.2250738585072011e-308", "1.7976931348623157e308", "7.0064923216240854e-46", "3.4028235677973366e38"]
    text = "1 qid:1 " + " ".join(f"{j}:{v}" for j, v in enumerate(cases, 1)) + "\n"
    path = write(tmp_path / "a.txt", text)
    assert_same(load_letor(path), *oracle(text.encode()))
    float32 = "1 qid:1 " + " ".join(f"{j}:{v}" for j, v in enumerate(cases[:-3], 1)) + "\n"
    path = write(tmp_path / "b.txt", float32)
    assert_same(load_letor(path, dtype=np.float32), *oracle(float32.encode(), dtype=np.float32))
    assert load_letor(path, dtype=np.float32).X[0, 4] == 1.0  # rounded through float64, as scikit-learn does


def test_docids_split_at_unicode_spaces_as_the_regular_expression_does(tmp_path):
    lines = ["0 qid:1 1:1 #docid =\u00a0D1\u2003inc = 1", "0 qid:1 1:1 #docid\u3000=\u2028D2",
             "0 qid:1 #docid=\x1fD3\x85x", "0 qid:1 #docid = D\u00e94\u00a0", "0 qid:1 #mydocid\u00a0=\u00a0\u00a0D5"]
    path = tmp_path / "a.txt"
    path.write_bytes("\n".join(lines).encode())
    assert load_letor(path).docid.tolist() == [DOCID.search(line.partition("#")[2]).group(1) for line in lines] \
        == ["D1", "D2", "D3", "Dé4", "D5"]


def test_a_docid_holding_a_nul_byte_is_refused_naming_its_line(tmp_path):
    path = write(tmp_path / "a.txt", "0 qid:0 #docid = a\n0 qid:0 #docid=\x00\x85inc = 1\n")
    with pytest.raises(ValueError, match=r"a\.txt, line 2: the docid holds a NUL byte"):
        load_letor(path)
