"""What the downloads write: each array of numbers to PUBLISHED_DIGITS significant digits of its largest entry
(figures_src/engine/text.py's `published`), so that two BLAS kernels, whose matrix products differ around 1e-15,
publish the same bytes (issue 55). The writers: an example's JSON, a figure's CSV, a problem set and the kit.
"""
import json
import re

import numpy as np
import pytest

from figures_src.engine.downloads import csv_text
from figures_src.engine.examples import example_json
from figures_src.engine.text import PUBLISHED_DIGITS, published
from figures_src.pages import problems

MANTISSA = re.compile(r"-?(\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


def significant(text):
    """The significant digits of a number as written: "0.00123" has 3, "262144" 6, "1.5e-05" 2."""
    digits = MANTISSA.fullmatch(text).group(1).replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) if "." in text or "e" in text.lower() else len(digits)


def test_an_array_keeps_ten_significant_digits_of_its_largest_entry():
    assert PUBLISHED_DIGITS == 10
    assert published(0.1234567890123456) == 0.123456789, "a number alone: 10 significant digits of its own"
    assert published(123456.78901234) == 123456.789
    assert published([3.14159265358979, 0.00271828182845904]) == [3.141592654, 0.002718282], (
        "an array: the decimals that print its largest entry with 10 significant digits, for every entry")
    assert published([[1e-16, 0.5], [-2.0000000000000004, 0.0]]) == [[0.0, 0.5], [-2.0, 0.0]], (
        "float noise around a true zero rounds to 0, and −0.0 is written 0.0")
    assert published(np.array([0.9999999999999999, 0.1])) == [1.0, 0.1], "an array's largest entry just below 1"
    assert repr(published(-1e-300)) == "-1e-300"
    for value in (0.1 + 0.2, 2 / 3, 1e-17 / 3, 6.02214076e23 / 7):
        assert significant(repr(published(value))) <= PUBLISHED_DIGITS, f"{value!r} kept more than 10 digits"


def test_exact_values_stay_as_they_are():
    record = {"seed": 7, "n": np.int64(3), "mask": [[True, False]], "scores": [[float("-inf"), 1.5]],
              "tokens": ["the", "cat"], "big": 12345678901234567, "none": None, "inf": float("inf")}
    assert published(record) == {"seed": 7, "n": 3, "mask": [[True, False]], "scores": [[float("-inf"), 1.5]],
                                 "tokens": ["the", "cat"], "big": 12345678901234567, "none": None, "inf": float("inf")}, (
        "integers, booleans, ±inf, None and strings are written as they are")
    assert type(published(True)) is bool and type(published(3)) is int and type(published(np.float64(0.5))) is float
    assert published([{"values": [1e-16, 1.0]}, {"values": [1e-16]}]) == [{"values": [0.0, 1.0]}, {"values": [1e-16]}], (
        "a list of records is rounded record by record, each array by its own largest entry")


def noisy(values, rng):
    """`values` as another BLAS kernel might compute them: each moved by up to 1e-15 of the array's largest entry,
    and the first row, a true zero, as noise of 1e-16 (a sum of terms that cancel)."""
    values = np.array(values, dtype=float)
    values += rng.uniform(-1e-15, 1e-15, values.shape) * np.abs(values).max()
    values[0] = rng.uniform(-1e-16, 1e-16, values.shape[1])
    return values


def test_two_kernels_noise_writes_the_same_bytes():
    """Numbers that differ only at 1e-15 of their array (one BLAS kernel against another) write the same JSON, CSV
    and problem set (the kit writes its cases as the sets do)."""
    rng = np.random.default_rng(55)
    X = rng.normal(size=(5, 4)).round(1)
    Q = X @ rng.normal(size=(4, 4))
    one, other = noisy(Q, rng), noisy(Q, rng)
    assert not np.array_equal(one, other), "the two kernels' numbers differ"

    def example(Q):
        return {"id": "ex-noise", "title": "t", "page": "p/", "library_version": "0", "seed": 0, "inputs": {"X": X},
                "steps": {"Q": Q}, "outputs": {"out": Q / 3}}

    def table(Q):
        return [("Q", ["row", "a", "b", "c", "d"], [[f"q{k}", *row] for k, row in enumerate(Q)])]

    def problem_set(Q):
        return {"set": "s", "variants": [{"id": "s-01", "inputs": [{"name": "X", "values": X.tolist()}],
                                          "parts": [{"name": "Q", "values": Q.tolist()}]}]}

    assert example_json(example(one)) == example_json(example(other)), "an example's JSON"
    assert csv_text(table(one)) == csv_text(table(other)), "a figure's CSV"
    assert problems.set_json(problem_set(one)) == problems.set_json(problem_set(other)), "a problem set"
    written = json.loads(problems.set_json(problem_set(one)))["variants"][0]["parts"][0]["values"]
    assert written[0] == [0.0] * 4, "a true zero that came out as noise is written 0"


# ---------------------------------------------------------------- what the build wrote


def is_float(cell):
    """A CSV cell written as a float ("0.5", "1e-05"); an integer (17179869184 bytes) is exact and written whole."""
    return bool(MANTISSA.fullmatch(cell)) and ("." in cell or "e" in cell.lower())


def numbers_in_json(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from numbers_in_json(item)
    elif isinstance(value, list):
        for item in value:
            yield from numbers_in_json(item)
    elif isinstance(value, float):
        yield repr(value)


def test_every_published_number_has_at_most_ten_significant_digits(generated):
    """Every float in every example's JSON, every figure's CSV, every problem set and the kit: those are what two
    machines must write alike (an integer is exact, and written whole)."""
    public = generated / "public"
    kit = (public / "problems" / "problems.py").read_text(encoding="utf-8")
    cases = re.search(r"CASES = json\.loads\(r'''(.*?)'''\)", kit, flags=re.S).group(1)
    written = {path.relative_to(public).as_posix(): numbers_in_json(json.loads(path.read_text(encoding="utf-8")))
               for folder in ("examples", "problems") for path in sorted((public / folder).glob("*.json"))}
    written["problems/problems.py"] = numbers_in_json(json.loads(cases))
    for path in sorted(public.rglob("*.csv")):
        written[path.relative_to(public).as_posix()] = (cell for line in path.read_text(encoding="utf-8").splitlines()
                                                        for cell in line.split(",") if is_float(cell))
    assert sum(name.startswith("examples/") for name in written) >= 20 and len(written) >= 60
    for name, numbers in written.items():
        longest = max(numbers, key=significant, default="0")
        assert significant(longest) <= PUBLISHED_DIGITS, (
            f"{name} writes {longest}: a download keeps at most {PUBLISHED_DIGITS} significant digits "
            "(figures_src/engine/text.py's published), so every BLAS kernel writes the same bytes")


@pytest.mark.parametrize("text, digits", [("0.00123", 3), ("262144", 6), ("1.5e-05", 2), ("-0.1234567891", 10),
                                          ("100.0", 1), ("0.0", 0)])
def test_significant_digits_are_counted_as_written(text, digits):
    assert significant(text) == digits
