"""A minimal, valid PDF with real text objects, for tests of PDF references.

No PDF library is needed to write one; pypdf reads it back.
"""

from __future__ import annotations


def minimal_pdf(lines: list[str] | str) -> bytes:
    """One page of Helvetica text, one PDF text line per item of ``lines``."""
    if isinstance(lines, str):
        lines = [lines]
    escaped = [t.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for t in lines]
    body = " ".join(f"({t}) Tj 0 -16 Td" for t in escaped)
    stream = f"BT /F1 12 Tf 72 720 Td {body} ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for i, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return out
