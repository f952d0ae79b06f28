"""Bad values from Python get a ValueError or TypeError that names what is wrong, as
the executable's usage errors do: binds out of the range of a dim value, negative
or given twice; symbol values of `Dim.eval` and `Dim.subs` that are negative or out
of range; `bind` and `assume` of the wrong type."""

import pytest
from conftest import EXAMPLE

import symdim
from symdim import Dim

CALLS = (symdim.infer, symdim.infer_shapes, symdim.constraints, symdim.ranges)
DIM_RANGE = "a dim value is an integer from 0 to 9223372036854775807"


@pytest.mark.parametrize("value", [2**63, 2**64, -(2**63) - 1])
def test_a_bind_out_of_range_is_a_value_error_naming_it(value):
    for call in CALLS:
        with pytest.raises(ValueError) as e:
            call(EXAMPLE, bind={"batch": value})
        assert not isinstance(e.value, TypeError)
        assert str(e.value) == f'bind["batch"] = {value}: out of range ({DIM_RANGE})'
    with pytest.raises(ValueError, match=str(value)):
        symdim.check(EXAMPLE, [("batch", value)])


def test_the_largest_bind_is_taken():
    report = symdim.infer(EXAMPLE, bind={"batch": 2**63 - 1})
    assert report["x"].shape[0] == 2**63 - 1


def test_negative_and_conflicting_binds_raise_the_clis_message(cli):
    for args, bind in (
        (["--bind", "batch=-3"], {"batch": -3}),
        (["--bind", "batch=1", "--bind", "batch=2"], [("batch", 1), ("batch", 2)]),
    ):
        out = cli("infer", EXAMPLE, *args)
        assert out.returncode == 2 and not out.stdout
        message = out.stderr.decode().strip().removeprefix("symdim: ")
        for call in CALLS:
            with pytest.raises(ValueError) as e:
                call(EXAMPLE, bind=bind)
            assert str(e.value) == message
        with pytest.raises(ValueError) as e:
            symdim.check(EXAMPLE, bind)
        assert str(e.value) == message


def test_negative_and_conflicting_binds_say_why():
    with pytest.raises(ValueError, match="negative: dims are at least 0"):
        symdim.infer(EXAMPLE, bind={"batch": -3})
    with pytest.raises(ValueError, match="batch is already bound to 1"):
        symdim.infer(EXAMPLE, bind=[("batch", 1), ("batch", 2)])
    # The same value twice changes nothing: no conflict.
    assert symdim.infer(EXAMPLE, bind=[("batch", 2), ("batch", 2)])["x"].shape[0] == 2


def test_bind_and_assume_of_the_wrong_type_are_type_errors():
    bind_types = "bind must map symbol names (str) to values (int)"
    for bad in (5, {"batch": "four"}, {"batch": 2.0}, [("batch",)], [(1, 2)]):
        with pytest.raises(TypeError) as e:
            symdim.infer(EXAMPLE, bind=bad)
        assert str(e.value) == bind_types, bad
    for bad in (5, [3], ["batch >= 1", None]):
        with pytest.raises(TypeError) as e:
            symdim.infer(EXAMPLE, assume=bad)
        assert str(e.value) == "assume must be a str or an iterable of str", bad
    with pytest.raises(TypeError, match="assume must be a str or an iterable of str"):
        symdim.simplify("S", 5)


@pytest.mark.parametrize("value", [2**63, 2**64, -(2**63) - 1])
def test_eval_and_subs_of_a_value_out_of_range_name_it(value):
    expected = f"the value of `batch` = {value}: out of range ({DIM_RANGE})"
    with pytest.raises(ValueError) as e:
        Dim("batch").eval(batch=value)
    assert str(e.value) == expected
    with pytest.raises(ValueError) as e:
        Dim("2*batch").subs({"batch": value})
    assert str(e.value) == expected


def test_eval_and_subs_of_a_negative_value_are_value_errors():
    expected = f"the value of `batch` = -5: negative ({DIM_RANGE})"
    with pytest.raises(ValueError) as e:
        Dim("batch").eval(batch=-5)
    assert str(e.value) == expected
    with pytest.raises(ValueError) as e:
        Dim("2*batch").subs(batch=-5)
    assert str(e.value) == expected
    # 0 is a dim value.
    assert Dim("2*batch + 1").eval(batch=0) == 1
    assert Dim("2*batch").subs(batch=0) == 0
    assert Dim("batch").eval(batch=2**63 - 1) == 2**63 - 1


def test_eval_of_a_value_of_the_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="the value of `S` must be an int"):
        Dim("S").eval(S="two")
    with pytest.raises(TypeError, match="the value of `S` must be an int"):
        Dim("S").subs(S=1.5)


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_path_that_is_not_a_regular_file_is_refused_unread(tmp_path, kind):
    # A FIFO would block the read forever; every entry point checks the path
    # first, as the CLI does.
    import os

    path = tmp_path / "model.onnx"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    for call in (symdim.infer, symdim.infer_shapes, symdim.constraints):
        with pytest.raises(symdim.ModelError, match=r"cannot read .*: it is a (FIFO|directory)"):
            call(str(path))
