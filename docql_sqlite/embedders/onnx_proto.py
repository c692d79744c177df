"""The few ONNX protobuf messages a computation graph needs, written without the `onnx` package.

onnxruntime runs a model from the bytes of an ONNX `ModelProto`; building one usually
takes the `onnx` package (a 16 MB wheel and its protobuf classes) only to serialise a
handful of messages. This module writes those messages directly in protobuf's wire
format (varints, length-delimited fields, little-endian floats), with the field numbers
of `onnx/onnx.proto` (IR version 8):

- ModelProto: ir_version 1, graph 7, opset_import 8;
- GraphProto: node 1, name 2, initializer 5, input 11, output 12;
- NodeProto: input 1, output 2, op_type 4, attribute 5, domain 7;
- AttributeProto: name 1, f 2, i 3, s 4, ints 8, type 20;
- TensorProto: dims 1, data_type 2, name 8, raw_data 9;
- ValueInfoProto: name 1, type 2 -> TypeProto.tensor_type 1 -> elem_type 1, shape 2 ->
  TensorShapeProto.dim 1 -> dim_value 1 | dim_param 2;
- OperatorSetIdProto: domain 1, version 2.

Used by `e5_onnx.py`; tests/test_embed_e5_onnx.py runs small graphs written here through
onnxruntime against numpy.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np

IR_VERSION = 8
# TensorProto.DataType values.
FLOAT, UINT8, INT8, INT64 = 1, 2, 3, 7
_DATA_TYPES = {
    np.dtype(np.float32): FLOAT,
    np.dtype(np.uint8): UINT8,
    np.dtype(np.int8): INT8,
    np.dtype(np.int64): INT64,
}
# AttributeProto.AttributeType values.
_ATTR_FLOAT, _ATTR_INT, _ATTR_STRING, _ATTR_INTS = 1, 2, 3, 7

AttributeValue = float | int | str | Sequence[int]


def _varint(value: int) -> bytes:
    if value < 0:  # int64 fields: two's complement, ten bytes
        value += 1 << 64
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _int_field(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def _bytes_field(field: int, value: bytes | str) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return _varint((field << 3) | 2) + _varint(len(data)) + data


def _float_field(field: int, value: float) -> bytes:
    return _varint((field << 3) | 5) + struct.pack("<f", value)


def tensor(name: str, array: np.ndarray) -> bytes:
    """A TensorProto: `array`'s shape, type and bytes (float32, uint8, int8 or int64)."""
    array = np.ascontiguousarray(array)
    try:
        data_type = _DATA_TYPES[array.dtype]
    except KeyError:
        raise TypeError(f"no ONNX type written for {array.dtype}") from None
    dims = b"".join(_int_field(1, d) for d in array.shape)
    return (
        dims
        + _int_field(2, data_type)
        + _bytes_field(8, name)
        + _bytes_field(9, array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes())
    )


def _attribute(name: str, value: AttributeValue) -> bytes:
    head = _bytes_field(1, name)
    if isinstance(value, bool):
        raise TypeError(f"attribute {name}: write a bool as an int")
    if isinstance(value, float):
        return head + _float_field(2, value) + _int_field(20, _ATTR_FLOAT)
    if isinstance(value, int):
        return head + _int_field(3, value) + _int_field(20, _ATTR_INT)
    if isinstance(value, str):
        return head + _bytes_field(4, value) + _int_field(20, _ATTR_STRING)
    return head + b"".join(_int_field(8, v) for v in value) + _int_field(20, _ATTR_INTS)


def node(
    op_type: str,
    inputs: Sequence[str],
    outputs: Sequence[str],
    domain: str = "",
    **attributes: AttributeValue,
) -> bytes:
    """A NodeProto: `op_type` of `domain` ("" is the standard ONNX domain)."""
    body = b"".join(_bytes_field(1, name) for name in inputs)
    body += b"".join(_bytes_field(2, name) for name in outputs)
    body += _bytes_field(4, op_type)
    body += b"".join(_bytes_field(5, _attribute(k, v)) for k, v in attributes.items())
    if domain:
        body += _bytes_field(7, domain)
    return body


def value_info(name: str, elem_type: int, dims: Sequence[int | str]) -> bytes:
    """A ValueInfoProto for a tensor input or output; a str dim is a symbolic size."""
    shape = b"".join(
        _bytes_field(1, _int_field(1, d) if isinstance(d, int) else _bytes_field(2, d))
        for d in dims
    )
    tensor_type = _int_field(1, elem_type) + _bytes_field(2, shape)
    return _bytes_field(1, name) + _bytes_field(2, _bytes_field(1, tensor_type))


def model(
    nodes: Sequence[bytes],
    initializers: Sequence[bytes],
    inputs: Sequence[bytes],
    outputs: Sequence[bytes],
    opsets: Sequence[tuple[str, int]],
) -> bytes:
    """A serialised ModelProto of one graph; `opsets` pairs each domain with its version."""
    graph = b"".join(_bytes_field(1, n) for n in nodes) + _bytes_field(2, "graph")
    graph += b"".join(_bytes_field(5, t) for t in initializers)
    graph += b"".join(_bytes_field(11, v) for v in inputs)
    graph += b"".join(_bytes_field(12, v) for v in outputs)
    opset_ids = b"".join(
        _bytes_field(8, _bytes_field(1, domain) + _int_field(2, version))
        for domain, version in opsets
    )
    return _int_field(1, IR_VERSION) + opset_ids + _bytes_field(7, graph)
