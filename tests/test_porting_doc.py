"""docs/porting.md tells the truth: each Theano name it lists as supported exists in
symnb, each flag exists, and the absent-name table is the one the library raises from."""

import importlib
import pathlib
import re

import pytest

import symnb as sn
from symnb.core.absent import ABSENT, NotInSymnbError, markdown_table

DOC = (pathlib.Path(__file__).parent.parent / "docs" / "porting.md").read_text()
ROW = re.compile(r"^\| `(theano(?:\.[A-Za-z_0-9]+)+)` \| supported", re.M)


def _resolve(path: str):
    parts = path.replace("theano", "symnb", 1).split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], start=1):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(".".join(parts[:i + 1]))
    return obj


def test_the_absent_table_is_rendered_in_the_doc():
    assert markdown_table() in DOC


@pytest.mark.parametrize("path", sorted(set(ROW.findall(DOC))))
def test_each_supported_name_exists(path):
    assert _resolve(path) is not None


def test_each_absent_name_raises_its_message():
    for module, names in ABSENT.items():
        mod = importlib.import_module(module)
        for name, text in names.items():
            with pytest.raises(NotInSymnbError) as info:
                getattr(mod, name)
            assert text in str(info.value)


def test_each_supported_flag_exists():
    section = DOC.split("## Configuration flags")[1].split("\n## ")[0]
    flags = re.findall(r"^\| `([a-z_.A-Z0-9]+)` \| supported", section, re.M)
    assert "print_test_value" in flags and "warn.round" in flags
    for flag in flags:
        getattr(sn.config, flag)  # raises for an unknown flag
