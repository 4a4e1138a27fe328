#!/usr/bin/env python3
"""Writes a TensorBoard event file independently of TrainBench's reader.

Debian has no TensorBoard package, so the tests make their event files here:
the messages come from the same .proto the reader is built from (compiled
with protoc into a temporary folder and imported with python3-protobuf), and
the TFRecord framing and its CRC-32C are written by this file's own code,
which shares nothing with core/logs/src/tfrecord.cpp. The layout follows
TensorFlow's record_writer.cc, event.proto, summary.proto and tensor.proto.

    write_tfevents.py --proto tensorboard_event.proto --out FILE --spec SPEC

SPEC is a JSON file, or JSON text when it starts with '{':

    {"file_version": "brain.Event:2",          optional, the default
     "wall_time": 1700000000.0,                optional, the first event's
     "events": [
       {"step": 10, "wall_time": 1700000001.5, optional per event
        "values": [{"tag": "lm loss", "value": 2.5, "form": "simple"}, ...],
        "unknown_field_bytes": 0}              optional: an extra field the
     ]}                                        reader must skip (a graph def)

Forms: simple (simple_value, what PyTorch's SummaryWriter writes), float_val,
double_val, tensor_content (float32 bytes), tensor_content_double, int64_val,
half_val, bfloat16 (TensorFlow 2's rank-0 tensors). Tensor forms carry the
"scalars" plugin metadata on a tag's first value in the file only, as
TensorFlow 2 does; "plugin": NAME on a value overrides that plugin name.
"""

import argparse
import importlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

CASTAGNOLI = 0x82F63B78


def _crc_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ CASTAGNOLI if crc & 1 else crc >> 1
        table.append(crc)
    return table


CRC_TABLE = _crc_table()


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc = CRC_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def frame(record: bytes) -> bytes:
    """One TFRecord: length, its masked CRC, the data, the data's masked CRC."""
    length = struct.pack("<Q", len(record))
    return (length + struct.pack("<I", masked_crc(length)) + record +
            struct.pack("<I", masked_crc(record)))


def load_messages(proto_path: str, protoc: str, scratch: str):
    folder, name = os.path.split(os.path.abspath(proto_path))
    subprocess.run([protoc, f"--python_out={scratch}", f"-I{folder}", os.path.join(folder, name)],
                   check=True)
    sys.path.insert(0, scratch)
    return importlib.import_module(os.path.splitext(name)[0] + "_pb2")


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def set_value(pb, value_msg, spec, tagged_before):
    form = spec.get("form", "simple")
    number = spec["value"]
    if form == "simple":
        value_msg.simple_value = number
        return
    tensor = value_msg.tensor
    tensor.tensor_shape.SetInParent()  # rank 0: a shape with no dimensions
    if form == "float_val":
        tensor.dtype = pb.DT_FLOAT
        tensor.float_val.append(number)
    elif form == "double_val":
        tensor.dtype = pb.DT_DOUBLE
        tensor.double_val.append(number)
    elif form == "tensor_content":
        tensor.dtype = pb.DT_FLOAT
        tensor.tensor_content = struct.pack("<f", number)
    elif form == "tensor_content_double":
        tensor.dtype = pb.DT_DOUBLE
        tensor.tensor_content = struct.pack("<d", number)
    elif form == "int64_val":
        tensor.dtype = pb.DT_INT64
        tensor.int64_val.append(int(number))
    elif form == "half_val":
        tensor.dtype = pb.DT_HALF
        tensor.half_val.append(struct.unpack("<H", struct.pack("<e", number))[0])
    elif form == "bfloat16":
        tensor.dtype = pb.DT_BFLOAT16
        tensor.half_val.append(struct.unpack("<I", struct.pack("<f", number))[0] >> 16)
    else:
        raise SystemExit(f"unknown form {form!r}")
    plugin = spec.get("plugin")
    if plugin is not None or spec["tag"] not in tagged_before:
        value_msg.metadata.plugin_data.plugin_name = (plugin or "scalars").encode()
        if plugin in (None, "scalars"):
            value_msg.metadata.data_class = pb.DATA_CLASS_SCALAR
        tagged_before.add(spec["tag"])


def write(pb, spec, out_path):
    wall_time = float(spec.get("wall_time", 1700000000.0))
    records = []
    first = pb.Event(wall_time=wall_time, step=0)
    first.file_version = spec.get("file_version", "brain.Event:2").encode()
    records.append(first.SerializeToString())
    tagged_before = set()
    for index, item in enumerate(spec.get("events", [])):
        event = pb.Event(wall_time=float(item.get("wall_time", wall_time + index + 1)),
                         step=int(item["step"]))
        event.summary.SetInParent()
        for value_spec in item.get("values", []):
            value_msg = event.summary.value.add()
            value_msg.tag = value_spec["tag"].encode()
            set_value(pb, value_msg, value_spec, tagged_before)
        data = event.SerializeToString()
        extra = int(item.get("unknown_field_bytes", 0))
        if extra:
            # Field 4 (Event.graph_def, bytes), which our .proto leaves out.
            data += varint((4 << 3) | 2) + varint(extra) + b"\x00" * extra
        records.append(data)
    with open(out_path, "wb") as out:
        for record in records:
            out.write(frame(record))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proto", required=True, help="tensorboard_event.proto")
    parser.add_argument("--out", required=True, help="the event file to write")
    parser.add_argument("--spec", required=True, help="JSON file, or JSON text")
    parser.add_argument("--protoc", default=shutil.which("protoc") or "protoc")
    args = parser.parse_args()
    if args.spec.lstrip().startswith("{"):
        spec = json.loads(args.spec)
    else:
        with open(args.spec, encoding="utf-8") as f:
            spec = json.load(f)
    with tempfile.TemporaryDirectory() as scratch:
        pb = load_messages(args.proto, args.protoc, scratch)
        write(pb, spec, args.out)


if __name__ == "__main__":
    main()
