"""The figures' SVG (svg_figure.py) as vector PDF, for a paper: no browser, no drawing library.

svg_figure writes a small subset of SVG (rect, path with M/L/H/V/Z and their relative forms, circle, text with
text-anchor and translate/rotate, one rectangular clip per panel, fill and stroke opacity, dashes), and this
module translates exactly that subset into PDF operators. Text is set in Helvetica (one of the PDF standard
fonts every reader has), WinAnsi-encoded; a character outside that encoding is written as its nearest ASCII
form. An element outside the subset is an error, so a new kind of mark cannot silently vanish from the PDF.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
import zlib
from dataclasses import dataclass, field

NS = "{http://www.w3.org/2000/svg}"
NAMED = {"white": (1.0, 1.0, 1.0), "black": (0.0, 0.0, 0.0), "grey": (0.5, 0.5, 0.5), "gray": (0.5, 0.5, 0.5),
         "red": (1.0, 0.0, 0.0), "blue": (0.0, 0.0, 1.0), "green": (0.0, 0.5, 0.0)}
# Helvetica's advance widths (1/1000 em) for characters 32-126, from its AFM file.
_WIDTHS = [278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, *[556] * 10, 278, 278,
           584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667,
           778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556,
           278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500,
           334, 260, 334, 584]
_EXTRA_WIDTHS = {"–": 556, "—": 1000, "·": 278, "±": 584, "×": 584, "…": 1000, "°": 400, "’": 222, "‘": 222}
_ASCII = {"−": "-", "Σ": "Sum ", "≤": "<=", "≥": ">=", "≈": "~", "→": "->", "←": "<-", "√": "sqrt", "Δ": "d"}
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


class SvgPdfError(ValueError):
    pass


def _color(value: str | None) -> tuple[float, float, float] | None:
    if value is None or value == "none":
        return None
    if value.startswith("#"):
        h = value[1:]
        if len(h) == 3:
            h = "".join(c * 2 for c in h)
        return tuple(int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]
    if value in NAMED:
        return NAMED[value]
    raise SvgPdfError(f"colour {value!r} is not one svg_pdf knows")


def _text_bytes(text: str) -> bytes:
    text = "".join(_ASCII.get(ch, ch) for ch in text)
    return text.encode("cp1252", errors="replace")


def text_width(text: str, size: float) -> float:
    """The width of `text` in Helvetica at `size` points."""
    total = 0
    for ch in "".join(_ASCII.get(c, c) for c in text):
        code = ord(ch)
        total += _WIDTHS[code - 32] if 32 <= code <= 126 else _EXTRA_WIDTHS.get(ch, 556)
    return total * size / 1000


def _pdf_string(data: bytes) -> str:
    out = []
    for b in data:
        ch = chr(b)
        out.append("\\" + ch if ch in "()\\" else ch if 32 <= b < 127 else f"\\{b:03o}")
    return "(" + "".join(out) + ")"


def _path_ops(d: str) -> list[str]:
    """An SVG path's M/L/H/V/Z (and m/l/h/v/z) commands as PDF path operators."""
    tokens = re.findall(r"[MLHVZmlhvz]|" + _NUMBER.pattern, d)
    ops: list[str] = []
    x = y = sx = sy = 0.0
    cmd = ""
    i = 0
    while i < len(tokens):
        if tokens[i].isalpha():
            cmd = tokens[i]
            i += 1
            if cmd in "Zz":
                ops.append("h")
                x, y = sx, sy
                continue
        if cmd in "MmLl":
            dx, dy = float(tokens[i]), float(tokens[i + 1])
            i += 2
            x, y = (x + dx, y + dy) if cmd.islower() else (dx, dy)
            if cmd in "Mm":
                ops.append(f"{x:.2f} {y:.2f} m")
                sx, sy = x, y
                cmd = "l" if cmd == "m" else "L"  # more pairs after a moveto are linetos
            else:
                ops.append(f"{x:.2f} {y:.2f} l")
        elif cmd in "HhVv":
            v = float(tokens[i])
            i += 1
            if cmd == "H":
                x = v
            elif cmd == "h":
                x += v
            elif cmd == "V":
                y = v
            else:
                y += v
            ops.append(f"{x:.2f} {y:.2f} l")
        else:
            raise SvgPdfError(f"path command {tokens[i]!r} in {d[:60]!r} is not one svg_pdf knows")
    return ops


@dataclass
class _Page:
    height: float
    ops: list[str] = field(default_factory=list)
    alphas: dict[str, float] = field(default_factory=dict)
    clips: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)

    def alpha(self, fill: float, stroke: float) -> None:
        name = f"A{round(fill * 100)}_{round(stroke * 100)}"
        self.alphas[name] = (fill, stroke)  # type: ignore[assignment]
        self.ops.append(f"/{name} gs")

    def paint(self, el: ET.Element, geometry: list[str]) -> None:
        fill, stroke = _color(el.get("fill", "black")), _color(el.get("stroke"))
        if fill is None and stroke is None:
            return
        self.ops.append("q")
        self.alpha(float(el.get("fill-opacity", 1)) * float(el.get("opacity", 1)),
                   float(el.get("stroke-opacity", 1)) * float(el.get("opacity", 1)))
        if fill is not None:
            self.ops.append("{:.3f} {:.3f} {:.3f} rg".format(*fill))
        if stroke is not None:
            self.ops.append("{:.3f} {:.3f} {:.3f} RG {} w".format(*stroke, el.get("stroke-width", "1")))
            dash = el.get("stroke-dasharray")
            if dash:
                self.ops.append(f"[{' '.join(re.split(r'[ ,]+', dash.strip()))}] 0 d")
        self.ops += geometry
        self.ops.append("B" if fill is not None and stroke is not None else "f" if fill is not None else "S")
        self.ops.append("Q")

    def element(self, el: ET.Element, font_size: float) -> None:
        tag = el.tag.removeprefix(NS)
        if tag == "rect":
            x, y = float(el.get("x", 0)), float(el.get("y", 0))
            self.paint(el, [f"{x:.2f} {y:.2f} {float(el.get('width')):.2f} {float(el.get('height')):.2f} re"])
        elif tag == "path":
            self.paint(el, _path_ops(el.get("d", "")))
        elif tag == "circle":
            self.paint(el, _circle(float(el.get("cx")), float(el.get("cy")), float(el.get("r"))))
        elif tag == "text":
            self.text(el, float(el.get("font-size", font_size)))
        elif tag == "g":
            clip = re.fullmatch(r"url\(#(.+)\)", el.get("clip-path", ""))
            self.ops.append("q")
            if clip:
                x, y, w, h = self.clips[clip.group(1)]
                self.ops.append(f"{x:.2f} {y:.2f} {w:.2f} {h:.2f} re W n")
            for child in el:
                self.element(child, font_size)
            self.ops.append("Q")
        elif tag == "clipPath":
            (rect,) = list(el)
            self.clips[el.get("id", "")] = tuple(float(rect.get(k)) for k in ("x", "y", "width", "height"))  # type: ignore[assignment]
        elif tag in ("title", "desc"):
            return
        else:
            raise SvgPdfError(f"SVG element <{tag}> is not one svg_pdf knows")

    def text(self, el: ET.Element, size: float) -> None:
        content = "".join(el.itertext())
        if not content:
            return
        bold = el.get("font-weight") in ("bold", "600", "700")
        width = text_width(content, size) * (1.05 if bold else 1.0)
        shift = {"middle": -width / 2, "end": -width}.get(el.get("text-anchor", "start"), 0.0)
        fill = _color(el.get("fill", "black")) or (0.0, 0.0, 0.0)
        self.ops.append("q")
        transform = el.get("transform", "")
        if transform:
            for name, args in re.findall(r"(translate|rotate)\(([^)]*)\)", transform):
                values = [float(v) for v in re.split(r"[ ,]+", args.strip())]
                if name == "translate":
                    self.ops.append(f"1 0 0 1 {values[0]:.2f} {values[1] if len(values) > 1 else 0:.2f} cm")
                else:
                    a = math.radians(values[0])
                    self.ops.append(f"{math.cos(a):.5f} {math.sin(a):.5f} {-math.sin(a):.5f} {math.cos(a):.5f} 0 0 cm")
        x, y = float(el.get("x", 0)), float(el.get("y", 0))
        self.ops.append("{:.3f} {:.3f} {:.3f} rg".format(*fill))
        # the page is flipped (SVG's y runs down): flip each text line back upright
        self.ops.append(f"BT /{'F2' if bold else 'F1'} {size:g} Tf 1 0 0 -1 {x + shift:.2f} {y:.2f} Tm "
                        f"{_pdf_string(_text_bytes(content))} Tj ET")
        self.ops.append("Q")


def _circle(cx: float, cy: float, r: float) -> list[str]:
    k = 0.5523 * r
    return [f"{cx + r:.2f} {cy:.2f} m",
            f"{cx + r:.2f} {cy + k:.2f} {cx + k:.2f} {cy + r:.2f} {cx:.2f} {cy + r:.2f} c",
            f"{cx - k:.2f} {cy + r:.2f} {cx - r:.2f} {cy + k:.2f} {cx - r:.2f} {cy:.2f} c",
            f"{cx - r:.2f} {cy - k:.2f} {cx - k:.2f} {cy - r:.2f} {cx:.2f} {cy - r:.2f} c",
            f"{cx + k:.2f} {cy - r:.2f} {cx + r:.2f} {cy - k:.2f} {cx + r:.2f} {cy:.2f} c", "h"]


def svg_to_pdf(svg: str) -> bytes:
    """One PDF page the size of the SVG (its width and height in pt, its viewBox in the same units)."""
    root = ET.fromstring(svg)
    width, height = (float(root.get(k, "0").removesuffix("pt")) for k in ("width", "height"))
    page = _Page(height)
    page.ops.append(f"1 0 0 -1 0 {height:.2f} cm")
    font_size = float(root.get("font-size", 10))
    for el in root:
        page.element(el, font_size)
    content = zlib.compress("\n".join(page.ops).encode("latin-1"))
    gstates = " ".join(f"/{n} << /ca {f:g} /CA {s:g} >>" for n, (f, s) in page.alphas.items())  # type: ignore[misc]
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width:g} {height:g}] /Contents 4 0 R "
        f"/Resources << /Font << /F1 5 0 R /F2 6 0 R >> /ExtGState << {gstates} >> >> >>",
        None,  # the content stream
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
        "<< /Producer (blockpact svg_pdf) >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        if body is None:
            out += f"{number} 0 obj\n<< /Length {len(content)} /Filter /FlateDecode >>\nstream\n".encode()
            out += content + b"\nendstream\nendobj\n"
        else:
            out += f"{number} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 7 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
