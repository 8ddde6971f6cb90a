"""Example-input specs: `1x3x224x224`, `1x8:int64`, `1x8:int64:0..100`, `2x4:float16`,
optionally prefixed by a keyword name (`attention_mask=1x8:int64`).

Floats are `randn`; integers are zeros, or `randint(LO, HI)` (HI exclusive) with a range;
bools are all True. Generation uses torch's global RNG, which the caller seeds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from opscope_export.errors import ExportError

SPEC_SYNTAX = "SHAPE[:DTYPE[:LO..HI]] like 1x3x224x224, 1x8:int64, 1x8:int64:0..100, 2x4:float16"

_DTYPE_NAMES = {
    "float32": "float32", "float": "float32", "f32": "float32",
    "float16": "float16", "half": "float16", "f16": "float16",
    "bfloat16": "bfloat16", "bf16": "bfloat16",
    "float64": "float64", "double": "float64", "f64": "float64",
    "int64": "int64", "long": "int64", "i64": "int64",
    "int32": "int32", "int": "int32", "i32": "int32",
    "int16": "int16", "int8": "int8", "uint8": "uint8",
    "bool": "bool",
}
_INTEGER_DTYPES = {"int64", "int32", "int16", "int8", "uint8"}


@dataclass(frozen=True)
class InputSpec:
    text: str
    shape: tuple[int, ...]
    dtype: str  # canonical torch dtype name, e.g. "float32"
    low: int | None = None
    high: int | None = None  # exclusive
    keyword: str | None = None  # passed as forward(keyword=...) when set

    def make_tensor(self):
        import torch

        dtype = getattr(torch, self.dtype)
        if self.dtype == "bool":
            return torch.ones(self.shape, dtype=dtype)
        if self.dtype in _INTEGER_DTYPES:
            if self.low is None:
                return torch.zeros(self.shape, dtype=dtype)
            return torch.randint(self.low, self.high, self.shape, dtype=dtype)
        return torch.randn(self.shape, dtype=torch.float32).to(dtype)


def _bad(text: str, why: str) -> ExportError:
    return ExportError(f"--input {text!r}: {why}; expected {SPEC_SYNTAX}")


def parse_input_spec(text: str) -> InputSpec:
    keyword = None
    body = text.strip()
    match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", body)
    if match:
        keyword, body = match.group(1), match.group(2)
    parts = body.split(":")
    if len(parts) > 3 or not parts[0]:
        raise _bad(text, "cannot read it")
    dims = parts[0].lower().split("x")
    if not all(d.isdigit() for d in dims):
        raise _bad(text, f"shape {parts[0]!r} must be positive integers joined by 'x'")
    shape = tuple(int(d) for d in dims)
    dtype_text = parts[1].lower() if len(parts) > 1 and parts[1] else "float32"
    dtype = _DTYPE_NAMES.get(dtype_text)
    if dtype is None:
        known = ", ".join(sorted(set(_DTYPE_NAMES.values())))
        raise _bad(text, f"unknown dtype {parts[1]!r} (known: {known})")
    low = high = None
    if len(parts) == 3:
        if dtype not in _INTEGER_DTYPES:
            raise _bad(text, f"a value range needs an integer dtype, not {dtype}")
        range_match = re.fullmatch(r"(-?\d+)\.\.(-?\d+)", parts[2].strip())
        if not range_match:
            raise _bad(text, f"range {parts[2]!r} must be LO..HI (HI exclusive), e.g. 0..100")
        low, high = int(range_match.group(1)), int(range_match.group(2))
        if high <= low:
            raise _bad(text, f"range {parts[2]!r} is empty (HI is exclusive)")
    return InputSpec(text=text, shape=shape, dtype=dtype, low=low, high=high, keyword=keyword)


def make_inputs(specs: list[InputSpec]):
    """(args tuple, kwargs dict) for torch.export.export, in spec order."""
    args = []
    kwargs = {}
    for spec in specs:
        tensor = spec.make_tensor()
        if spec.keyword is None:
            if kwargs:
                raise ExportError(
                    f"--input {spec.text!r}: positional inputs must come before keyword inputs"
                )
            args.append(tensor)
        else:
            kwargs[spec.keyword] = tensor
    return tuple(args), kwargs
