"""test_largest.py - the search for the largest value that fits (issue 56),
on recordings made without a GPU on the GPU machine (t/data/nogpu: GPT-2 at
sequence lengths 128, 256 and 512), replayed by the binary; the recording
step stands in (it copies the fixture recorded at that value).  Its answer
is checked against the same jobs run for real (facts.json)."""

import io
import json
import shutil

import pytest

from gpumemsim import largest, recorder
from conftest import path

FACTS = json.load(open(path("t", "data", "nogpu", "facts.json")))


def copy_fixture(value, dest):
    shutil.copy(path("t", "data", "nogpu", "gpt2-%d.nogpu.jsonl.gz" % value), dest)
    return 0


def test_largest_under_a_capacity_agrees_with_the_real_runs(tmp_path):
    out = io.StringIO()
    # record always names the card it stood for; the capacity replaces it
    best, rows = largest.search(copy_fixture, [128, 256, 512], str(tmp_path), "gpt2",
                                gpu="H100-80GB", capacity="3GiB", out=out)
    assert best == 256 and [v for v, _ in rows] == [128, 256, 512]
    assert [r.oom is None for _, r in rows] == [True, True, False]
    # the real runs on both sides of the answer: 256 fit in 3 GiB, 512 did not
    real = {v: FACTS["jobs"]["gpt2-%d" % v]["peak_reserved"] for v in (256, 512)}
    assert real[256] <= 3 << 30 < real[512]
    text = out.getvalue()
    assert "largest that fits: 256\n" in text
    assert "OUT OF MEMORY at event %d" % rows[2][1].oom.event in text
    assert "\nat 512 (" in text and "the largest free block is" in text


def test_all_fit_says_to_try_larger(tmp_path):
    out = io.StringIO()
    best, rows = largest.search(copy_fixture, [128, 512], str(tmp_path), "gpt2",
                                gpu="H100-80GB", out=out)
    assert best == 512 and len(rows) == 2
    assert "largest that fits: 512 (the largest tried: try larger values)" in out.getvalue()


def test_none_fits(tmp_path):
    out = io.StringIO()
    best, rows = largest.search(copy_fixture, [128, 256], str(tmp_path), "gpt2",
                                capacity="1GiB", out=out)
    assert best is None and len(rows) == 1
    assert "none of the values fits: the smallest, 128, runs out" in out.getvalue()


def test_a_failed_recording_stops_the_search(tmp_path):
    with pytest.raises(largest.SearchError) as e:
        largest.search(lambda v, p: 3, [8], str(tmp_path), "job", capacity="1GiB",
                       out=io.StringIO())
    assert "the recording at 8 failed (exit 3)" in str(e.value)


def test_where_the_value_goes():
    assert largest.with_value(["--epochs=1", "--bs={}"], None, 32) == ["--epochs=1", "--bs=32"]
    assert largest.with_value(["--batch-size", "8", "-q"], "--batch-size", 32) == \
        ["--batch-size", "32", "-q"]
    assert largest.with_value(["--batch-size=8"], "--batch-size", 32) == ["--batch-size=32"]
    assert largest.with_value(["-q"], "--batch-size", 32) == ["-q", "--batch-size=32"]
    assert largest.with_value(["gpt2", "128"], "2", 512) == ["gpt2", "512"]
    with pytest.raises(largest.SearchError, match="say where the value goes"):
        largest.with_value(["-q"], None, 8)
    with pytest.raises(largest.SearchError, match="the script is given 1 argument"):
        largest.with_value(["gpt2"], "2", 8)


def test_values_and_options(tmp_path, capsys):
    assert largest.parse_values("32,8,16,8") == [8, 16, 32]
    with pytest.raises(largest.SearchError, match="whole numbers"):
        largest.parse_values("8,x")
    script = tmp_path / "train.py"
    script.write_text("pass\n")
    assert recorder.main(["--values=8,x", str(script)]) == 3
    assert "--values takes whole numbers" in capsys.readouterr().err
    assert recorder.main(["--values=8,16", str(script), "-q"]) == 3
    assert "say where the value goes" in capsys.readouterr().err
    assert recorder.main(["--arg=--bs", str(script)]) == 3
    assert "--arg and --capacity go with --values" in capsys.readouterr().err
