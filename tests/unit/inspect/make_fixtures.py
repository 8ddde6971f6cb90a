"""Writes the .pt2 archives (and broken files) the core/inspect unit tests read.

usage: python make_fixtures.py OUTDIR
"""
import os
import sys
import zipfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_models as fm  # noqa: E402


def export(model, inputs, path, decompose=False):
    with torch.no_grad():
        ep = torch.export.export(model, inputs)
    if decompose:  # non-training dialect: buffer mutations become copy_ nodes
        ep = ep.run_decompositions({})
    torch.export.save(ep, path)


def rewrite_model_json(src, dst, edit, compression=None):
    """Copies a zip, passing models/model.json through `edit` (and recompressing every
    record when `compression` is given)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("models/model.json"):
                data = edit(data)
            if compression is not None:
                info.compress_type = compression
            zout.writestr(info, data)


def write_with_model_json(src, dst, chunks, compression):
    """Copies `src` with models/model.json replaced by the concatenated `chunks` (streamed:
    a 1 GiB record never sits in memory)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            if info.filename.endswith("models/model.json"):
                target = zipfile.ZipInfo(info.filename, info.date_time)
                target.compress_type = compression
                with zout.open(target, "w", force_zip64=True) as out:
                    for chunk in chunks:
                        out.write(chunk)
            else:
                zout.writestr(info, zin.read(info.filename))


def claim_size(path, record_suffix, size):
    """Rewrites the central directory so `record_suffix` claims `size` bytes inflated."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        name_length = int.from_bytes(data[at + 28:at + 30], "little")
        name = bytes(data[at + 46:at + 46 + name_length])
        if name.endswith(record_suffix):
            data[at + 24:at + 28] = size.to_bytes(4, "little")
        at = data.find(b"PK\x01\x02", at + 4)
    with open(path, "wb") as f:
        f.write(data)


def write_hostile_archives(p):
    """Issue 14's archives: small files that ask for gigabytes."""
    mib = b" " * (1 << 20)
    # 3.9 MB on disk, model.json inflates to 1 GiB of spaces.
    write_with_model_json(p("mymodel.pt2"), p("spaces_1gib.pt2"), (mib for _ in range(1024)),
                          zipfile.ZIP_DEFLATED)
    # Under the size limit, but 1000:1: no real archive compresses like that.
    write_with_model_json(p("mymodel.pt2"), p("spaces_100mib.pt2"), (mib for _ in range(100)),
                          zipfile.ZIP_DEFLATED)
    # A small deflated archive whose central directory claims model.json is 4 GB.
    rewrite_model_json(p("mymodel.pt2"), p("claims_4gb.pt2"), lambda d: d,
                       compression=zipfile.ZIP_DEFLATED)
    claim_size(p("claims_4gb.pt2"), b"models/model.json", 0xF0000000)
    # Stored (1:1) and within the limit: only memory can refuse it.
    write_with_model_json(p("mymodel.pt2"), p("stored_200mib.pt2"),
                          [b"["] + [mib] * 200 + [b"]"], zipfile.ZIP_STORED)


def main(out):
    os.makedirs(out, exist_ok=True)
    p = lambda name: os.path.join(out, name)  # noqa: E731
    torch.manual_seed(0)
    export(fm.MyModel().eval(), (torch.randn(1, 10),), p("mymodel.pt2"))
    export(fm.ResNetLike().eval(), (torch.randn(1, 3, 16, 16),), p("resnet_like.pt2"))
    export(fm.MultiOutput().eval(), (torch.randint(0, 20, (2, 6)),), p("multi_output.pt2"))
    export(fm.BufferUpdate().train(), (torch.randn(2, 3, 8, 8),), p("buffer_update.pt2"))
    with torch.no_grad():
        ep = torch.export.export(fm.BuiltinArgumentName().eval(), (torch.randn(2, 4), 3),
                                 {"scale": torch.randn(4)})
    torch.export.save(ep, p("builtin_argument_name.pt2"))
    export(fm.BufferUpdate().train(), (torch.randn(2, 3, 8, 8),), p("buffer_update_decomposed.pt2"),
           decompose=True)

    # Files that are not inspectable archives.
    model = fm.MyModel()
    torch.save(model.state_dict(), p("state_dict.pt"))
    torch.save(model, p("pickled_module.pt"))
    torch.save(model.state_dict(), p("legacy.pt"), _use_new_zipfile_serialization=False)
    torch.jit.script(model).save(p("torchscript.pt"))
    with open(p("notes.txt"), "w") as f:
        f.write("not a model\n")
    with open(p("mymodel.pt2"), "rb") as f:
        data = f.read()
    with open(p("truncated.pt2"), "wb") as f:
        f.write(data[: len(data) // 2])
    rewrite_model_json(p("mymodel.pt2"), p("schema9.pt2"),
                       lambda d: d.replace(b'"major": 8', b'"major": 9'))
    rewrite_model_json(p("mymodel.pt2"), p("bad_json.pt2"), lambda d: d[: len(d) // 2])
    # A flipped byte inside the stored model.json: only its CRC tells.
    assert data.count(b'"schema_version"') == 1
    with open(p("crc_mismatch.pt2"), "wb") as f:
        f.write(data.replace(b'"schema_version"', b'"schema_versioN"'))
    # An archive someone re-zipped with deflate: still a valid container.
    rewrite_model_json(p("mymodel.pt2"), p("deflated.pt2"), lambda d: d,
                       compression=zipfile.ZIP_DEFLATED)
    write_hostile_archives(p)
    with zipfile.ZipFile(p("plain.zip"), "w") as z:
        z.writestr("plain/readme.txt", "hello")
        z.writestr("plain/.data/version", "3\n")
    # Containers LibTorch refuses: entries outside a `<name>/` folder.
    with zipfile.ZipFile(p("flat.zip"), "w") as z:
        z.writestr("readme.txt", "hello")
    with zipfile.ZipFile(p("two_folders.zip"), "w") as z:
        z.writestr("a/.data/version", "3\n")
        z.writestr("b/readme.txt", "hello")


if __name__ == "__main__":
    main(sys.argv[1])
