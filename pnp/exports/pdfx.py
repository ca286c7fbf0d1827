"""PDF/X-1a:2003 (ISO 15930-4) from pnp's RGB one-card-per-page PDFs, and its structural
check. 2003, not 2001: DriveThruCards asks for PDF/X-1a:2003 (docs/PROOFS-AND-EXPORTS.md).

`make_pdfx` rewrites every content stream (pages and form XObjects): each RGB or grey
colour operator becomes a CMYK one (pnp.exports.cmyk: ICC conversion, total ink capped), black
and grey text and thin lines become K only, RGB images become CMYK images; then it adds
the OutputIntent (the ICC profile embedded) and the Info keys PDF/X asks for. No
PDF/X checker is installable here (veraPDF checks PDF/A and is not packaged; Ghostscript
writes PDF/X but does not check it), so `check_pdfx` checks the structural rules itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnp.exports.cmyk import THIN_LINE_PT, Converter, is_grey, k_only

if TYPE_CHECKING:
    from pypdf.generic import DictionaryObject, PdfObject

# 15930-4 names the part and conformance level in GTS_PDFXVersion alone; the 2001 edition's
# GTS_PDFXConformance key is not written.
PDFX_VERSION = "PDF/X-1a:2003"
PDF_HEADER = b"%PDF-1.4"          # PDF/X-1a:2003 is based on PDF 1.4 (no transparency)
FILL_OPS = {"f", "F", "f*"}
FILL_STROKE_OPS = {"B", "B*", "b", "b*"}
STROKE_OPS = {"S", "s"}
TEXT_SHOW_OPS = {"Tj", "TJ", "'", '"'}
RGB_OPS = {"rg", "RG"}
COLOUR_OPS = {"rg", "RG", "g", "G", "k", "K", "cs", "CS", "sc", "SC", "scn", "SCN"}


class PdfxError(ValueError):
    """The PDF cannot be made PDF/X-1a (transparency, an unsupported colour space)."""


def _dictionary(obj: PdfObject | None, what: str) -> DictionaryObject:
    """The dictionary `obj` is or refers to (pypdf types a resolved object as any kind)."""
    from pypdf.generic import DictionaryObject

    found = obj.get_object() if obj is not None else None
    if not isinstance(found, DictionaryObject):
        raise PdfxError(f"{what}: not a PDF dictionary")
    return found


def _numbers(obj: PdfObject, what: str) -> list[float]:
    """The numbers of the array `obj` is or refers to (a page box)."""
    from pypdf.generic import ArrayObject

    found = obj.get_object()
    if not isinstance(found, ArrayObject):
        raise PdfxError(f"{what}: not a PDF array")
    return [float(v) for v in found]


class _State:
    """What the content stream asked for (source colours) and what has been written."""

    __slots__ = ("fill", "stroke", "width", "wrote_fill", "wrote_stroke")

    def __init__(self) -> None:
        self.fill: Any = None          # ("rgb", r, g, b) | ("cmyk", c, m, y, k) | None
        self.stroke: Any = None
        self.width = 1.0
        self.wrote_fill: Any = None
        self.wrote_stroke: Any = None

    def copy(self) -> _State:
        s = _State()
        s.fill, s.stroke, s.width = self.fill, self.stroke, self.width
        s.wrote_fill, s.wrote_stroke = self.wrote_fill, self.wrote_stroke
        return s


def _source(op: str, operands: list) -> tuple:
    values = [float(v) for v in operands]
    if op in ("g", "G"):
        return ("rgb", values[0], values[0], values[0])
    if op in ("rg", "RG"):
        return ("rgb", *values)
    return ("cmyk", *values)


def _cmyk(colour: tuple, conv: Converter, k_text: bool) -> tuple:
    from pnp.exports.cmyk import cap_ink

    if colour[0] == "cmyk":           # given as CMYK in the template: only the ink cap
        c, m, y, k = colour[1:]
        return cap_ink(c, m, y, k, conv.ink_limit)
    rgb = colour[1:]
    if k_text and is_grey(rgb):
        return k_only(rgb)
    return conv.convert(rgb)


def convert_stream(operations: list, conv: Converter, where: str) -> list:
    """pypdf ContentStream operations, RGB colour operators replaced by CMYK ones written
    just before the painting operator that uses them."""
    recolour = _Recolouring(conv)
    for operands, operator in operations:
        op = operator.decode("latin-1") if isinstance(operator, bytes) else operator
        if op in ("rg", "g", "k"):
            recolour.state.fill = _source(op, operands)
            continue
        if op in ("RG", "G", "K"):
            recolour.state.stroke = _source(op, operands)
            continue
        if op in ("cs", "CS", "sc", "SC", "scn", "SCN"):
            raise PdfxError(f"{where}: colour operator {op} (colour spaces and patterns "
                            "cannot be converted to CMYK)")
        if op == "sh":
            raise PdfxError(f"{where}: a shading (gradient) cannot be converted to CMYK")
        recolour.before(op, operands)
        recolour.out.append((operands, operator))
    return recolour.out


class _Recolouring:
    """The operations written so far and the graphics state (colours set, colours written,
    line width) with its saved copies (q/Q)."""

    def __init__(self, conv: Converter) -> None:
        self.conv = conv
        self.out: list = []
        self.state = _State()
        self.stack: list[_State] = []

    def before(self, op: str, operands: list) -> None:
        """What operator `op` needs first: the state saved or restored, the line width
        noted, or the CMYK colour it paints with written."""
        state = self.state
        if op == "q":
            self.stack.append(state.copy())
        elif op == "Q" and self.stack:
            self.state = self.stack.pop()
        elif op == "w":
            state.width = float(operands[0])
        elif op in TEXT_SHOW_OPS:
            self.emit("fill", True)
        elif op in FILL_OPS:
            self.emit("fill", False)
        elif op in STROKE_OPS:
            self.emit("stroke", state.width <= THIN_LINE_PT)
        elif op in FILL_STROKE_OPS:
            self.emit("fill", False)
            self.emit("stroke", state.width <= THIN_LINE_PT)

    def emit(self, kind: str, k_text: bool) -> None:
        """The CMYK fill or stroke colour, written when it differs from the one in force."""
        from pypdf.generic import FloatObject

        state = self.state
        colour = state.fill if kind == "fill" else state.stroke
        if colour is None:
            return
        value = _cmyk(colour, self.conv, k_text)
        wrote = state.wrote_fill if kind == "fill" else state.wrote_stroke
        if value != wrote:
            self.out.append(([FloatObject(round(v, 4)) for v in value],
                             b"k" if kind == "fill" else b"K"))
            if kind == "fill":
                state.wrote_fill = value
            else:
                state.wrote_stroke = value


def _convert_image(obj: Any, conv: Converter, where: str) -> None:
    from pypdf.generic import NameObject, NumberObject

    if "/SMask" in obj or "/Mask" in obj:
        raise PdfxError(f"{where}: an image with transparency (PDF/X-1a allows none; "
                        "flatten the image onto its background)")
    space = obj.get("/ColorSpace")
    if space in ("/DeviceCMYK", "/DeviceGray"):
        return
    if space != "/DeviceRGB":
        raise PdfxError(f"{where}: an image in colour space {space} (expected RGB)")
    import io

    from PIL import Image

    filters = obj.get("/Filter")
    filters = [filters] if isinstance(filters, str) else list(filters or [])
    size = (int(obj["/Width"]), int(obj["/Height"]))
    image: Image.Image
    if "/DCTDecode" in filters:                 # get_data() leaves the JPEG as it is
        image = Image.open(io.BytesIO(obj.get_data()))
    elif int(obj.get("/BitsPerComponent", 8)) == 8:
        image = Image.frombytes("RGB", size, obj.get_data())
    else:
        raise PdfxError(f"{where}: an RGB image of {obj.get('/BitsPerComponent')} bits")
    _replace_data(obj, conv.image(image).tobytes())
    obj[NameObject("/ColorSpace")] = NameObject("/DeviceCMYK")
    obj[NameObject("/BitsPerComponent")] = NumberObject(8)
    if "/Decode" in obj:
        del obj["/Decode"]


def _replace_data(obj: Any, raw: bytes) -> None:
    """A stream's data replaced by `raw`, Flate-compressed, whatever its filters were."""
    import zlib

    from pypdf.generic import NameObject, StreamObject

    # StreamObject's own set_data: an encoded stream's re-encodes with its old filters
    # (and refuses any but Flate).
    StreamObject.set_data(obj, zlib.compress(raw, 6))
    if hasattr(obj, "decoded_self"):
        obj.decoded_self = None
    obj[NameObject("/Filter")] = NameObject("/FlateDecode")
    if "/DecodeParms" in obj:
        del obj["/DecodeParms"]


def _check_gstates(resources: Any, where: str) -> None:
    for name, gs in (resources.get("/ExtGState") or {}).items():
        gs = gs.get_object()
        for key in ("/ca", "/CA"):
            if key in gs and float(gs[key]) < 1:
                raise PdfxError(f"{where}: transparency ({name} {key} {float(gs[key]):g}; "
                                "PDF/X-1a allows none: use an opaque tint instead of alpha)")
        if gs.get("/SMask", "/None") != "/None" or gs.get("/BM", "/Normal") not in (
                "/Normal", "/Compatible"):
            raise PdfxError(f"{where}: transparency ({name}: soft mask or blend mode)")


def _xobjects(resources: Any, where: str, seen: set):
    """The images and forms of `resources` not visited yet, each with its place (`where`
    and its resource name) for messages; `seen` keeps them visited once."""
    for name, ref in (resources.get("/XObject") or {}).items():
        key = getattr(ref, "idnum", None) or id(ref)
        if key in seen:
            continue
        seen.add(key)
        yield ref.get_object(), f"{where} {name}"


def _convert_resources(resources: Any, conv: Converter, writer: Any, where: str,
                       seen: set) -> None:
    from pypdf.generic import ContentStream

    _check_gstates(resources, where)
    for obj, inner in _xobjects(resources, where, seen):
        if obj.get("/Subtype") == "/Image":
            _convert_image(obj, conv, inner)
        elif obj.get("/Subtype") == "/Form":
            stream = ContentStream(obj, writer)
            stream.operations = convert_stream(stream.operations, conv, inner)
            _replace_data(obj, stream.get_data())
            if "/Group" in obj:
                raise PdfxError(f"{inner}: a transparency group")
            _convert_resources(obj.get("/Resources") or {}, conv, writer, inner, seen)


def make_pdfx(source: Path, target: Path, conv: Converter, title: str) -> None:
    """Write `source` (pnp's one-card-per-page RGB PDF) as PDF/X-1a:2003 `target`.
    PdfxError (one line, naming the page) for what PDF/X-1a cannot hold."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import (
        ArrayObject,
        ContentStream,
        DecodedStreamObject,
        DictionaryObject,
        NameObject,
        NumberObject,
        TextStringObject,
    )

    reader = PdfReader(source)
    writer = PdfWriter(clone_from=reader)
    seen: set = set()
    for number, page in enumerate(writer.pages, 1):
        where = f"page {number}"
        if "/Group" in page:
            raise PdfxError(f"{where}: a transparency group")
        resources = page.get("/Resources") or DictionaryObject()
        _convert_resources(resources.get_object(), conv, writer, where, seen)
        contents = page.get_contents()
        if contents is None:
            continue
        stream = ContentStream(contents, writer)
        stream.operations = convert_stream(stream.operations, conv, where)
        page.replace_contents(stream)
        page.compress_content_streams()
    icc = DecodedStreamObject()
    icc.set_data(conv.icc.read_bytes())
    icc[NameObject("/N")] = NumberObject(4)
    profile = icc.flate_encode()
    intent = DictionaryObject({
        NameObject("/Type"): NameObject("/OutputIntent"),
        NameObject("/S"): NameObject("/GTS_PDFX"),
        # Not a registered printing condition: "Custom" with the profile embedded.
        NameObject("/OutputConditionIdentifier"): TextStringObject("Custom"),
        NameObject("/OutputCondition"): TextStringObject(conv.description),
        NameObject("/Info"): TextStringObject(conv.description),
        NameObject("/RegistryName"): TextStringObject("http://www.color.org"),
        NameObject("/DestOutputProfile"): writer._add_object(profile),
    })
    writer.root_object[NameObject("/OutputIntents")] = ArrayObject(
        [writer._add_object(intent)])
    writer.add_metadata({"/Title": title, "/GTS_PDFXVersion": PDFX_VERSION})
    # add_metadata writes text only; Trapped is a name
    info = _dictionary(writer._info, "the document information")
    info[NameObject("/Trapped")] = NameObject("/False")
    for key in ("/CreationDate", "/ModDate"):
        if key not in info:
            info[NameObject(key)] = TextStringObject("D:20000101000000+00'00'")
    writer.pdf_header = PDF_HEADER
    with open(target, "wb") as fh:
        writer.write(fh)


# ── the check ────────────────────────────────────────────────────────────────────


def _fonts(pdf: Any, resources: Any, where: str, problems: list[str], seen: set) -> None:
    for name, ref in (resources.get("/Font") or {}).items():
        font = ref.get_object()
        descendants = font.get("/DescendantFonts")
        for f in ([d.get_object() for d in descendants] if descendants else [font]):
            if f.get("/Subtype") == "/Type3":
                continue
            desc = f.get("/FontDescriptor")
            desc = desc.get_object() if desc is not None else {}
            if not any(k in desc for k in ("/FontFile", "/FontFile2", "/FontFile3")):
                problems.append(f"{where}: font {name} ({f.get('/BaseFont')}) is not "
                                "embedded")
    for obj, inner in _xobjects(resources, where, seen):
        if obj.get("/Subtype") == "/Image":
            space = obj.get("/ColorSpace")
            if space not in ("/DeviceCMYK", "/DeviceGray"):
                problems.append(f"{inner}: image in {space}, not CMYK")
            if "/SMask" in obj or "/Mask" in obj:
                problems.append(f"{inner}: image with transparency")
        elif obj.get("/Subtype") == "/Form":
            _stream_problems(obj, pdf, inner, problems)
            if "/Group" in obj:
                problems.append(f"{inner}: transparency group")
            _fonts(pdf, obj.get("/Resources") or {}, inner, problems, seen)
    for name, gs in (resources.get("/ExtGState") or {}).items():
        gs = gs.get_object()
        if any(k in gs and float(gs[k]) < 1 for k in ("/ca", "/CA")) or gs.get(
                "/SMask", "/None") != "/None":
            problems.append(f"{where}: transparency in {name}")
    for name, space in (resources.get("/ColorSpace") or {}).items():
        if "RGB" in str(space.get_object()):
            problems.append(f"{where}: RGB colour space {name}")


def _stream_problems(stream: Any, pdf: Any, where: str, problems: list[str]) -> None:
    from pypdf.generic import ContentStream

    for operands, operator in ContentStream(stream, pdf).operations:
        op = operator.decode("latin-1")
        if op in RGB_OPS or (op in ("cs", "CS") and "RGB" in str(operands)):
            problems.append(f"{where}: RGB colour operator {op}")
            return


def colour_operations(pdf: Any, page: Any) -> list[tuple[str, list[float], bool]]:
    """(operator, values, in text) for every colour operator of a page's content stream."""
    from pypdf.generic import ContentStream

    ops = []
    in_text = False
    for operands, operator in ContentStream(page.get_contents(), pdf).operations:
        op = operator.decode("latin-1")
        if op == "BT":
            in_text = True
        elif op == "ET":
            in_text = False
        elif op in COLOUR_OPS:
            ops.append((op, [float(v) for v in operands if not hasattr(v, "startswith")],
                        in_text))
    return ops


def check_pdfx(path: Path) -> list[str]:
    """The structural rules of PDF/X-1a:2003 this module promises, as one line per
    problem (empty: passes): PDF 1.3 or 1.4; an OutputIntent GTS_PDFX with an embedded
    CMYK ICC profile and an OutputConditionIdentifier; GTS_PDFXVersion and Trapped in
    Info; TrimBox and BleedBox on every page (inside the MediaBox); every font embedded;
    no RGB colour operator, colour space or image; no transparency."""
    from pypdf import PdfReader

    problems: list[str] = []
    pdf = PdfReader(path)
    if pdf.pdf_header[:8] not in ("%PDF-1.3", "%PDF-1.4"):
        problems.append(f"header {pdf.pdf_header}: PDF/X-1a:2003 is PDF 1.4 at most")
    _intent_problems(pdf, problems)
    _info_problems(pdf, problems)
    seen: set = set()
    for number, page in enumerate(pdf.pages, 1):
        where = f"page {number}"
        _box_problems(page, where, problems)
        if "/Group" in page:
            problems.append(f"{where}: transparency group")
        contents = page.get_contents()
        if contents is not None:
            _stream_problems(contents, pdf, where, problems)
        _fonts(pdf, page.get("/Resources") or {}, where, problems, seen)
    return problems


def _intent_problems(pdf: Any, problems: list[str]) -> None:
    """One GTS_PDFX OutputIntent, with an OutputConditionIdentifier and an embedded CMYK
    ICC profile."""
    root = _dictionary(pdf.trailer["/Root"], "the document catalog")
    intents = root.get("/OutputIntents")
    intents = [i.get_object() for i in intents.get_object()] if intents else []
    gts = [i for i in intents if i.get("/S") == "/GTS_PDFX"]
    if len(gts) != 1:
        problems.append(f"{len(gts)} GTS_PDFX OutputIntents (expected 1)")
    for intent in gts:
        if not str(intent.get("/OutputConditionIdentifier") or ""):
            problems.append("OutputIntent: no OutputConditionIdentifier")
        profile = intent.get("/DestOutputProfile")
        data = profile.get_object().get_data() if profile is not None else b""
        if len(data) < 128 or data[16:20] != b"CMYK" or data[36:40] != b"acsp":
            problems.append("OutputIntent: no embedded CMYK ICC profile")


def _info_problems(pdf: Any, problems: list[str]) -> None:
    """Info: GTS_PDFXVersion, Trapped, Title, CreationDate and ModDate."""
    info = pdf.trailer.get("/Info")
    info = info.get_object() if info is not None else {}
    if info.get("/GTS_PDFXVersion") != PDFX_VERSION:
        problems.append(f"Info: GTS_PDFXVersion is {info.get('/GTS_PDFXVersion')!r}")
    if info.get("/Trapped") not in ("/True", "/False"):
        problems.append("Info: Trapped is not True or False")
    for key in ("/Title", "/CreationDate", "/ModDate"):
        if key not in info:
            problems.append(f"Info: no {key[1:]}")


def _box_problems(page: Any, where: str, problems: list[str]) -> None:
    """A TrimBox and a BleedBox, each inside the MediaBox."""
    media = _numbers(page["/MediaBox"], f"{where}: MediaBox")
    for box in ("/TrimBox", "/BleedBox"):
        if box not in page:
            problems.append(f"{where}: no {box[1:]}")
            continue
        b = _numbers(page[box], f"{where}: {box[1:]}")
        if b[0] < media[0] - 0.01 or b[1] < media[1] - 0.01 or b[2] > media[2] + 0.01 \
                or b[3] > media[3] + 0.01:
            problems.append(f"{where}: {box[1:]} outside the MediaBox")
