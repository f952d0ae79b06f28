"""The type stubs (symdim/_native.pyi) describe the extension module as it is: every
class, method, property and function of the stubs exists at run time, and every
public name of the module is in the stubs."""

import ast
import inspect
from pathlib import Path

import symdim
from symdim import _native

STUBS = Path(symdim.__file__).with_name("_native.pyi")


def _stub_tree():
    return ast.parse(STUBS.read_text())


def test_the_stubs_are_installed_with_the_package():
    assert STUBS.exists()
    assert Path(symdim.__file__).with_name("py.typed").exists()


def test_every_stub_exists_at_run_time():
    for node in _stub_tree().body:
        if isinstance(node, ast.ClassDef):
            cls = getattr(_native, node.name)
            assert inspect.isclass(cls), node.name
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AnnAssign)):
                    name = item.name if isinstance(item, ast.FunctionDef) else item.target.id
                    assert hasattr(cls, name), f"{node.name}.{name}"
        elif isinstance(node, ast.FunctionDef):
            assert callable(getattr(_native, node.name)), node.name


def test_every_public_name_has_a_stub():
    stubbed = set()
    for node in _stub_tree().body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            stubbed.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            stubbed.add(node.target.id)
    public = {n for n in dir(_native) if not n.startswith("_")} | {"__version__"}
    assert public <= stubbed, public - stubbed


def test_every_public_item_has_a_docstring():
    for name in symdim.__all__:
        obj = getattr(symdim, name)
        if name == "__version__":
            continue
        assert inspect.getdoc(obj), name
        if inspect.isclass(obj):
            for attr, value in vars(obj).items():
                if not attr.startswith("_"):
                    assert inspect.getdoc(value), f"{name}.{attr}"
