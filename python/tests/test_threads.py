"""Calls from many Python threads at once: the GIL is released while a model is
inferred, every call gives what it gives alone, and none deadlocks."""

import threading
import time

import onnx
from conftest import EXAMPLE

import models
import symdim

THREADS = 100
JOIN_TIMEOUT_S = 600


def test_the_gil_is_released_while_inferring():
    model = models.conv_chain(blocks=600).SerializeToString()
    symdim.infer_shapes(model)  # warm up
    window = {}

    def work():
        window["start"] = time.perf_counter()
        symdim._native.annotate(model)
        window["end"] = time.perf_counter()

    ticks = []
    t = threading.Thread(target=work)
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.0005)
    t.join()
    start, end = window["start"], window["end"]
    assert end - start > 0.02, "the model infers too fast to tell"
    # While the call ran, this thread kept running Python: with the GIL held it could
    # not have run at all between the call's first and last instants.
    inside = [x for x in ticks if start + 0.005 < x < end - 0.005]
    assert len(inside) >= 3, (len(inside), end - start)


def test_many_threads_lose_nothing():
    inputs = [
        ("example", EXAMPLE.read_bytes(), None),
        ("bert", models.bert_like().SerializeToString(), None),
        ("bert-bound", models.bert_like().SerializeToString(), {"batch_size": 3}),
        ("chain", models.conv_chain(blocks=40).SerializeToString(), None),
        ("error", models.broadcast_error().SerializeToString(), None),
    ]
    expected = {
        name: (symdim.infer(data, bind=bind).to_json(), symdim._native.annotate(data, bind=bind)[0])
        for name, data, bind in inputs
    }
    results = [None] * THREADS
    errors = []
    barrier = threading.Barrier(THREADS)

    def work(i):
        try:
            name, data, bind = inputs[i % len(inputs)]
            barrier.wait()
            got = []
            for _ in range(3):
                report = symdim.infer(data, bind=bind)
                got.append((report.to_json(), symdim._native.annotate(data, bind=bind)[0]))
                # Reading the report's objects from many threads too.
                assert all(t.shape is None or len(t.shape) == t.rank for t in report.tensors.values())
            results[i] = (name, got)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append((i, repr(e)))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + JOIN_TIMEOUT_S
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    alive = [t for t in threads if t.is_alive()]
    assert not alive, f"{len(alive)} threads still running after {JOIN_TIMEOUT_S} s"
    assert not errors, errors[:3]
    for i, r in enumerate(results):
        assert r is not None, i
        name, got = r
        for g in got:
            assert g == expected[name], name


def test_infer_shapes_from_threads_returns_model_protos():
    data = models.bert_like().SerializeToString()
    expected = symdim.infer_shapes(data)
    out = [None] * 16
    threads = [threading.Thread(target=lambda i=i: out.__setitem__(i, symdim.infer_shapes(data))) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOIN_TIMEOUT_S)
    assert all(isinstance(m, onnx.ModelProto) and m == expected for m in out)
